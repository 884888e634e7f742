"""Every default, written here once and read from here everywhere: the planar_parser's options
(``PARSER_OPTIONS``, which its factory's default config gives: ``parser/transition/factory.py``) and
what no factory holds."""
ROOT_LABEL = "root"  # UD's label of a sentence's root word
EXTRA_ROOT_LABEL = "dep"  # the label of what is attached without being parsed (whitespace, a second root)
PARSER_FACTORIES = ("planar_parser", "biaffine_parser")  # the parsers' factories: a pipeline's parser is one of them
# the parsers that learn from teachers (train --teacher): the moves; the heads (parser/graph/teachers.py)
TAUGHT_FACTORIES = ("planar_parser", "biaffine_parser")
BATCH_SIZE = 1000  # Docs per ``nlp.pipe`` batch: spaCy's own default
LANG = "xx"  # the language of a pipeline or vocab that names none: spaCy's multilingual
# with several treebanks, `train` then trains this many epochs on the target alone: none, as measured on four
# treebanks the project never chose on (they cost 0.4-1.1 LAS there; docs/decisions.md, 2026-11-29)
TARGET_EPOCHS = 0
TEMPERATURE = 1.0  # the k-best parses' softmax temperature before ``calibrate`` fits one

# where released pipelines live: the index that `spacy-planar download` reads (`package` writes one per dist/)
PIPELINES_INDEX = "https://github.com/spacy-planar/spacy-planar/releases/latest/download/index.json"
# the beam that k-best parses and arc probabilities are computed with unless told otherwise
# (parse --kbest / --confidence, calibrate, render --confidence)
KBEST_BEAM = 8
# the driver loop compacts its batch (drops finished rows) when fewer than this share of them are live
COMPACT_BELOW = 0.5
# the planar_parser's options as its factory's default config gives them (the recommended parser:
# pseudo-projective arc-eager, greedy, exploring; docs/design.md's table says what each does)
PARSER_OPTIONS = {
    "single_root": True, "root_label": None, "extra_root_label": EXTRA_ROOT_LABEL, "exploration": 0.9,
    "exploration_nonprojective": None, "exploration_keep_order": False, "beam_width": 1, "beam_density": 0.0,
    "beam_merge": False, "beam_update": "local", "n_best": 1, "head_probs": False, "tree_transforms": [],
}
