"""The ``planar_parser`` factory: its default config and options."""
from typing import Callable, List, Optional

from spacy.language import Language
from thinc.api import Model

from spacy_planar.defaults import PARSER_OPTIONS
from spacy_planar.parser.transition import catalog as _catalog  # noqa: F401  (registers the transition systems, entry points or not)
from spacy_planar.parser.shared import scorer as _scorer  # noqa: F401  (registers the default scorer, entry points or not)
from spacy_planar.parser.shared.tok2vec import default_model
from spacy_planar.parser.transition.pipe import PlanarParser
from spacy_planar.parser.systems.registry import Configured

# The recommended parser, in this one place: pseudo-projective arc-eager (the most accurate system on
# the small non-projective treebanks measured, docs/decisions.md) at the widths and exploration of the shipped
# configs (whose partials, spacy_planar/partials/*.partial.cfg, say only what differs), over a tok2vec of its
# own that is base.partial.cfg's (read from it below; the shipped configs listen to a shared one instead).
DEFAULT_CONFIG = """
[model]
@architectures = "spacy-planar.PlanarParserModel.v1"
hidden_width = 128
maxout_pieces = 3
nO = null

[transition_system]
@transition_systems = "spacy-planar.arc_eager.v1"

[scorer]
@scorers = "spacy-planar.parser_scorer.v1"
"""
DEFAULT_MODEL = default_model(DEFAULT_CONFIG)


@Language.factory(
    "planar_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": DEFAULT_MODEL["model"], "transition_system": DEFAULT_MODEL["transition_system"],
                    **PARSER_OPTIONS, "scorer": DEFAULT_MODEL["scorer"]},
    default_score_weights={
        "dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "dep_np_p": None, "dep_np_r": None,
        "dep_np_f": 0.0, "sents_p": None, "sents_r": None, "sents_f": 0.0,
    },
)
def make_planar_parser(nlp: Language, name: str, model: Model, transition_system: Configured, single_root: bool,
                       root_label: Optional[str], extra_root_label: str, exploration: float,
                       exploration_nonprojective: Optional[float], exploration_keep_order: bool,
                       beam_width: int, beam_density: float, beam_merge: bool, beam_update: str, n_best: int,
                       head_probs: bool, tree_transforms: List[str], scorer: Optional[Callable]):
    """A dependency parser whose transition system is chosen in the config:
    arc-eager with pseudo-projective encoding (Nivre & Nilsson 2005), planar
    and 2-planar (Gomez-Rodriguez & Nivre 2010), swap (Nivre, Kuhlmann & Hall
    2009) or top-down (Hayashi et al. 2012; its model needs ``arc_width``).
    The options, one line each (docs/design.md, "The component's options",
    says how each works; docs/decisions.md why each default is what it is):

    single_root: one root per sentence, labelled ``root_label``, by the moves.
    root_label: the root's label; None: learned from the training data.
    extra_root_label: the label of what is attached without being parsed.
    exploration: the chance that a training parse follows the model rather
        than the dynamic oracle (Goldberg & Nivre 2012); 0: static oracle.
    exploration_nonprojective: the same for non-projective gold trees (None:
        ``exploration``).
    exploration_keep_order: while exploring, SWAP / SWITCH from the static oracle.
    beam_width: states per sentence in the beam (1: greedy); settable at load.
    beam_density: drop candidates below this share of the best (0: none).
    beam_merge: merge states nothing ahead tells apart (Huang & Sagae 2010).
    beam_update: "local" (per transition) or "global" (plus the beam's loss).
    n_best: the k best trees and calibrated arc probabilities (k <= beam_width).
    head_probs: each word's arc probability also with n_best 1 (greedy: the
        probability of the move that attached it), what a reparsing
        biaffine_parser reads as this parser's vote (``reparse_with``).
    tree_transforms: Nilsson's (2007) transforms, inverted on output.
    """
    return PlanarParser(nlp.vocab, model, name, transition_system=transition_system, single_root=single_root,
                        root_label=root_label, extra_root_label=extra_root_label, exploration=exploration,
                        exploration_nonprojective=exploration_nonprojective,
                        exploration_keep_order=exploration_keep_order, beam_width=beam_width,
                        beam_density=beam_density, beam_merge=beam_merge,
                        beam_update=beam_update, tree_transforms=tree_transforms, scorer=scorer, n_best=n_best,
                        head_probs=head_probs)
