"""Defaults that no factory's config holds, each written here once and read
from here everywhere (the parser's own options are its factory's default
config, ``component/factory.py``)."""
ROOT_LABEL = "root"  # UD's label of a sentence's root word
EXTRA_ROOT_LABEL = "dep"  # the label of what is attached without being parsed (whitespace, a second root)
PARSER_FACTORIES = ("planar_parser", "biaffine_parser")  # the parsers' factories: a pipeline's parser is one of them
BATCH_SIZE = 1000  # Docs per ``nlp.pipe`` batch: spaCy's own default
LANG = "xx"  # the language of a pipeline or vocab that names none: spaCy's multilingual
# with several treebanks, `train` then trains this many epochs on the target alone: none, as measured on four
# treebanks the project never chose on (they cost 0.4-1.1 LAS there; docs/decisions.md, 2026-11-29)
TARGET_EPOCHS = 0
TEMPERATURE = 1.0  # the k-best parses' softmax temperature before ``calibrate`` fits one

# where released pipelines live: the index that `spacy-planar download` reads (`package` writes one per dist/)
PIPELINES_INDEX = "https://github.com/spacy-planar/spacy-planar/releases/latest/download/index.json"
