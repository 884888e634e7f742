"""The ``planar_parser``'s settings, typed: its options (the factory's, checked once here) and
what it learns in training (labels, the root label, feature templates, top-down's FIRST sets,
the calibration), held once and saved as the component's ``cfg`` (JSON, the same keys as ever)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Dict, List, Optional

from spacy_planar.defaults import ROOT_LABEL
from spacy_planar.errors import Errors, UserError
from spacy_planar.parser.transition.kbest import uncalibrated
from spacy_planar.trees.transforms import check_transforms

# how to parse and train, set by the config (``spacy.load(..., config=...)`` overrides them); the rest is learned
OPTIONS = ("single_root", "extra_root_label", "exploration", "exploration_nonprojective", "exploration_keep_order",
           "beam_width", "beam_density", "beam_merge", "beam_update", "n_best", "head_probs")
# set by the config at training and learned with the weights: a value given at load must be the saved one
# (the system: its moves and labels, the encoding its labels decorate and deprojectivize by)
TRAINED = ("system", "root_label", "tree_transforms")


@dataclass
class ParserSettings:
    """Every setting of one ``planar_parser`` (``factory.py`` documents the options)."""

    system: Dict
    single_root: bool
    root_label: str
    extra_root_label: str
    exploration: float
    exploration_nonprojective: Optional[float]
    exploration_keep_order: bool
    beam_width: int
    beam_density: float
    beam_merge: bool
    beam_update: str
    n_best: int
    tree_transforms: List[str]
    head_probs: bool = False
    learn_root_label: bool = False  # root_label was None: the training data's
    labels: List[str] = field(default_factory=list)
    features: Optional[List[str]] = None
    label_features: Optional[List[str]] = None
    first: Optional[Dict[str, List[str]]] = None
    calibration: Dict = field(default_factory=uncalibrated)

    @classmethod
    def from_options(cls, name: str, system: Dict, dynamic_oracle: bool, *, root_label: Optional[str],
                     tree_transforms: List[str], **options) -> "ParserSettings":
        """The factory's options, checked: one line (a ``UserError``) for a value out of range."""
        for option in ("exploration", "exploration_nonprojective"):
            value = options[option]
            if value is not None and not 0.0 <= value <= 1.0:
                raise UserError(Errors.E061.format(name=name, option=option, value=value))
        if not dynamic_oracle and (options["exploration"] or options["exploration_nonprojective"]):
            raise UserError(Errors.E064.format(name=name))
        if options["beam_update"] not in ("local", "global"):
            raise UserError(Errors.E065.format(name=name, value=options["beam_update"]))
        width, density = int(options["beam_width"]), float(options["beam_density"])
        if width < 1 or not 0.0 <= density < 1.0:
            raise UserError(Errors.E062.format(name=name, width=width, density=density))
        if not 1 <= int(options["n_best"]) <= width:
            raise UserError(Errors.E066.format(name=name, n_best=options["n_best"], width=width))
        return cls(system=system, root_label=root_label or ROOT_LABEL, learn_root_label=root_label is None,
                   tree_transforms=check_transforms(tree_transforms), beam_width=width, beam_density=density,
                   exploration_keep_order=bool(options.pop("exploration_keep_order")),
                   beam_merge=bool(options.pop("beam_merge")), n_best=int(options.pop("n_best")),
                   head_probs=bool(options.pop("head_probs", False)),
                   **{k: v for k, v in options.items() if k not in ("beam_width", "beam_density")})

    @property
    def keeps_finals(self) -> bool:
        """Whether a parse keeps its final states' trees and moves (``driver.beam_parse``'s
        ``finals``): for the k best parses (``n_best`` > 1 with a beam) or the words' arc
        probabilities (``head_probs``; greedy: a beam of 1, the same choices)."""
        return (self.n_best > 1 and self.beam_width > 1) or self.head_probs

    def to_dict(self) -> Dict:
        """As the component's cfg is saved (what it learned and how it was configured)."""
        out = asdict(self)
        out.pop("learn_root_label")
        return out

    def load(self, name: str, saved: Dict) -> None:
        """Take a saved pipeline's learned settings (``to_dict``'s), keeping
        the options this component was built with; a trained setting given
        at load (``TRAINED``) that is not the saved one is a one-line error
        (E139): the weights were learned with the saved one."""
        for key in TRAINED:
            given = getattr(self, key)
            if key in saved and given != saved[key] and not (key == "root_label" and self.learn_root_label):
                shown = "transition_system" if key == "system" else key  # the config's name of it
                raise UserError(Errors.E139.format(name=name, key=shown, given=given, saved=saved[key]))
        known = {f.name for f in fields(self)}
        for key, value in saved.items():
            if key in known and key not in OPTIONS:
                setattr(self, key, value)
        self.learn_root_label = False
