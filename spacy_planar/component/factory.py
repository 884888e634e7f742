"""The ``planar_parser`` factory: its default config and options."""
from pathlib import Path
from typing import Callable, List, Optional

from spacy.language import Language
from thinc.api import Config, Model

from .. import catalog as _catalog  # noqa: F401  (registers the transition systems, entry points or not)
from .. import scorer as _scorer  # noqa: F401  (registers the default scorer, entry points or not)
from ..systems.registry import Configured
from .pipe import PlanarParser

# The recommended parser, in this one place: pseudo-projective arc-eager (the most accurate system on
# the small non-projective treebanks measured, docs/decisions.md) at the widths and exploration of the shipped
# configs (whose partials, spacy_planar/configs/*.cfg, say only what differs), over a tok2vec of its
# own that is base.cfg's (read from it below; the shipped configs listen to a shared one instead).
DEFAULT_CONFIG = """
[model]
@architectures = "spacy-planar.PlanarParserModel.v1"
hidden_width = 128
maxout_pieces = 3
labels_apart = false
arc_width = 0
nO = null

[transition_system]
@transition_systems = "spacy-planar.arc_eager.v1"

[scorer]
@scorers = "spacy-planar.parser_scorer.v1"
"""
WIDTH_VARIABLE = "${components.tok2vec.model.encode.width}"
VECTORS_VARIABLE = "${paths.vectors}"
CHARLM_VARIABLE = "${paths.charlm}"


def base_tok2vec() -> dict:
    """base.cfg's tok2vec model, its width variable filled in and without
    static vectors or character language model (``${paths.vectors}`` and
    ``${paths.charlm}`` are a training config's; the factory's own tok2vec
    has neither): the one definition of the encoder the
    factory's parser gets by default."""
    base = Config().from_disk(Path(__file__).resolve().parents[1] / "configs" / "base.cfg", interpolate=False)
    model = base["components"]["tok2vec"]["model"]
    width = model["encode"]["width"]

    def fill(section):
        filled = {WIDTH_VARIABLE: width, VECTORS_VARIABLE: None, CHARLM_VARIABLE: None}
        return {k: fill(v) if isinstance(v, dict) else (filled[v] if isinstance(v, str) and v in filled else v)
                for k, v in section.items()}

    return fill(model)


DEFAULT_MODEL = Config().from_str(DEFAULT_CONFIG)
DEFAULT_MODEL["model"]["tok2vec"] = base_tok2vec()


@Language.factory(
    "planar_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={
        "model": DEFAULT_MODEL["model"],
        "transition_system": DEFAULT_MODEL["transition_system"],
        "single_root": True,
        "root_label": None,
        "extra_root_label": "dep",
        "exploration": 0.9,
        "exploration_nonprojective": None,
        "exploration_keep_order": False,
        "beam_width": 1,
        "beam_density": 0.0,
        "beam_merge": False,
        "beam_update": "local",
        "n_best": 1,
        "tree_transforms": [],
        "scorer": DEFAULT_MODEL["scorer"],
    },
    default_score_weights={
        "dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None, "dep_np_p": None, "dep_np_r": None,
        "dep_np_f": 0.0, "sents_p": None, "sents_r": None, "sents_f": 0.0,
    },
)
def make_planar_parser(nlp: Language, name: str, model: Model, transition_system: Configured, single_root: bool,
                       root_label: Optional[str], extra_root_label: str, exploration: float,
                       exploration_nonprojective: Optional[float], exploration_keep_order: bool,
                       beam_width: int, beam_density: float, beam_merge: bool, beam_update: str, n_best: int,
                       tree_transforms: List[str], scorer: Optional[Callable]):
    """A dependency parser whose transition system is chosen in the config:
    arc-eager with pseudo-projective encoding, planar, 2-planar, swap, or
    top-down (pseudo-projective; its model needs ``arc_width``).

    single_root: give each sentence exactly one root labelled ``root_label``
        (valid UD), built by every system's moves (the planar systems parse
        under the tree constraint: words left without a head when the
        buffer is empty go back to it and are attached by the model). A
        sentence left with several roots all the same (never expected) is
        counted and reported (E090), its extra roots attached to the root of
        the largest tree with ``extra_root_label``.
    root_label: the label of root words; None: learned from the training data.
    exploration: training with exploration (Goldberg & Nivre 2012) on the
        system's dynamic oracle (exact for arc-eager, approximate for planar,
        2-planar and swap): the probability that a training parse follows the
        model's own prediction rather than a cheapest move. 0: the static
        oracle (cached transition sequences).
    exploration_nonprojective: the same probability for the sentences whose
        gold tree is non-projective; None: ``exploration``.
    exploration_keep_order: while exploring, take from the static oracle the
        moves by which it builds a sentence's non-projective structure, where
        they cost nothing: swap's SWAPs and 2-planar's SWITCHes and arcs of
        crossing links. No effect on arc-eager and planar.
    beam_width: parse with a beam of this many states per sentence, scored
        by the sum of the log-probabilities of their actions (1: greedy, the
        fast path). Can be set at load time: ``spacy.load(name, config=
        {"components": {"planar_parser": {"beam_width": 8}}})``.
    beam_density: with a beam, drop the candidates whose probability is
        below this share of the sentence's best candidate (0: keep all).
    beam_merge: with a beam, merge states that nothing ahead can tell apart
        (Huang & Sagae 2010), keeping the better scored.
    beam_update: how the parser learns. "local": towards each transition
        of the static oracle (cross-entropy per state; the beam, if any, is
        used at parse time only). "global": that, plus the beam's global
        loss: each training sentence is parsed with a beam of
        ``beam_width`` beside its gold derivation, with early update when
        the gold prefix falls out, and the loss is the negative
        log-probability of the gold sequence under a softmax over the
        beam's sequences (Zhou et al. 2015; Andor et al. 2016); with
        exploration, the per-transition loss is the exploring one.
    n_best: with a beam (``beam_width`` > 1), keep the k most probable
        distinct trees of each sentence (k = n_best <= beam_width) on
        ``Doc._.parses`` / ``Span._.parses`` and each word's arc probability
        on ``Token._.head_prob`` (``kbest.py``: the beam's marginal and the
        probabilities of the moves that made the arc, through the map
        ``spacy-planar calibrate`` fits on dev); 1: neither (nothing extra
        is computed).
    tree_transforms: tree transformations of Nilsson (2007) for UD, applied
        in this order to the training trees (before the system's
        pseudo-projective encoding) and inverted on the parser's output
        (after it), e.g. ["coordination-ms", "verb-group-ms"]; names in
        ``spacy_planar.transforms.TRANSFORMS``. Their labels never reach
        Docs, ``labels`` or scores.

    docs/decisions.md has the measurements behind each default. (Over 60
    lines: this docstring is the options' documentation.)
    """
    return PlanarParser(nlp.vocab, model, name, transition_system=transition_system, single_root=single_root,
                        root_label=root_label, extra_root_label=extra_root_label, exploration=exploration,
                        exploration_nonprojective=exploration_nonprojective,
                        exploration_keep_order=exploration_keep_order, beam_width=beam_width,
                        beam_density=beam_density, beam_merge=beam_merge,
                        beam_update=beam_update, tree_transforms=tree_transforms, scorer=scorer, n_best=n_best)
