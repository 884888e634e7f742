"""Error and warning messages with codes, in one place (as spaCy's ``errors.py``), and what
happens when something that is never expected happens anyway (``unexpected``).

Each code is written once, as the attribute's name: ``Errors.E031`` is the
message "[E031] ..." (``ErrorsWithCodes``), a ``Message`` that knows its code,
which ``format`` keeps and ``UserError.code`` gives: callers tell errors
apart by it, never by their text. ``Errors``: what stops a command (bad input,
a setting that cannot be used) or is an internal error; ``Warnings``: what was
repaired or left out so that the output stays valid, counted and reported."""
import os
import warnings


class Message(str):
    """A message and its code (``Errors.E031.code == "E031"``); ``format`` keeps the code."""

    code: str

    def __new__(cls, text: str, code: str = ""):
        message = super().__new__(cls, text)
        message.code = code
        return message

    def format(self, *args, **kwargs) -> "Message":
        return Message(super().format(*args, **kwargs), self.code)


class ErrorsWithCodes(type):
    """A class whose message attributes come with their codes: ``[CODE] message``."""

    def __getattribute__(cls, name: str):
        value = super().__getattribute__(name)
        if name.startswith("_") or not isinstance(value, str):
            return value
        return Message(f"[{name}] {value}", name)


class Errors(metaclass=ErrorsWithCodes):
    """The messages, by code, in code order; ``UserError.code`` names an error by its code."""
    # CoNLL-U input (each is prefixed by "FILE:LINE: ")
    E001 = "not valid UTF-8 ({reason} at byte {start})"
    E002 = "expected 10 tab-separated columns, found {n}"
    E003 = "ID '{id}' is not a word number, a range (3-4) or an empty node (3.1)"
    E004 = "ID {id} out of order: expected {expected}"
    E005 = "HEAD '{head}' is not a number"
    E006 = "HEAD {head} of word {id} is outside 0..{n}"
    E007 = "word {id} is its own head"
    E008 = "cycle through words {cycle}"
    E009 = "no word of the sentence is attached to the root (HEAD 0)"
    E010 = "HEAD '_' on some words only (words {ids}): a sentence is either annotated or not"
    E011 = "range {id} does not cover words of the sentence"
    E012 = "sentence has comments but no words"
    E013 = "{reason}"
    E014 = ("a field contains two consecutive spaces, which CoNLL-U readers (the conllu library among them) "
            "read as a column separator")
    E015 = "the file holds no sentence"
    E016 = "the file holds no text"
    E017 = "this is a spaCy DocBin (.spacy), not CoNLL-U: spacy-planar convert writes CoNLL-U from it"
    E018 = "this is plain text, not CoNLL-U (its first line is not a word's tab-separated columns)"
    E019 = "neither CoNLL-U, a spaCy DocBin nor UTF-8 text ({reason} at byte {start})"
    # Doc to CoNLL-U, conversions and files
    E020 = "Doc {doc}: token {token} has its head outside its sentence"
    E021 = "cannot put annotated and unannotated sentences in one Doc (set n_sents=1)"
    E030 = "convert takes one DocBin (.spacy) and one CoNLL-U file, got {input} and {output}"
    E031 = "{path}: file not found"
    E032 = "{path}: is a directory, not a file"
    E033 = "{path}: already exists; choose a new directory"
    E034 = "no words in {sources}"
    E035 = "floret is not installed: pip install 'spacy-planar[vectors]' (or pip install floret)"
    E036 = "unknown floret model '{model}': expected cbow or skipgram"
    # evaluation
    E040 = "{gold} has {n_gold} sentences but {system} has {n_system}"
    E041 = "sentence {sent} (gold line {gold_line}, system line {system_line}): {reason}"
    E042 = "{path} line {line}: sentence {sent} has no dependency annotation (HEAD '_')"
    E043 = "{path}: the CoNLL 2018 scorer cannot read it: {reason}"
    E044 = "--level must be 1 to 5, got {level}"
    # pseudo-projective
    E050 = "unknown encoding '{name}': expected one of {options}"
    E051 = "unknown tree transform '{name}': expected one of {options}"
    # the component
    E060 = ("{name}: the model has {n_model} actions but the transition system {n_system}; "
            "labels cannot change after training starts")
    E061 = "{name}: {option} must be a probability, got {value}"
    E062 = "{name}: beam_width must be at least 1 and beam_density in [0, 1), got {width} and {density}"
    E063 = ("{name}: the transition system {system} and the model do not go together: top-down needs "
            "the model's arc scorer (arc_width > 0 in spacy-planar.PlanarParserModel.v1), the other systems "
            "have none")
    E064 = ("{name}: the top-down system has no dynamic oracle: set exploration = 0 and "
            "exploration_nonprojective = null (the factory's defaults are arc-eager's; configs/top_down.cfg has "
            "top-down's)")
    E065 = "{name}: beam_update must be 'local' or 'global', got '{value}'"
    E066 = "{name}: n_best must be from 1 to beam_width ({width}), got {n_best}"
    # transition systems, oracles and the driver loop
    E070 = "unknown transition system '{name}': expected one of {options}"
    E071 = "unknown swap oracle '{oracle}': expected eager or lazy"
    E072 = "{system}: a state outlived its bound of transitions"
    E073 = "{system} oracle chose an invalid move {move} in sentence {row} of the batch"
    E075 = "no oracle for the transition system {system}"
    # the command line
    E079 = "{source}: a CoNLL-U file is drawn as it is annotated; it takes no --text"
    E080 = "unknown system '{system}': expected one of {options}"
    E081 = "expected NAME=PIPELINE_DIR, got '{item}'"
    E082 = ("{model}: no planar_parser in the pipeline ({pipes}); a beam and k-best parses are the transition "
            "systems' (a biaffine_parser decodes the one best tree)")
    E083 = "{path}: expected an .svg or .html file"
    E084 = "{source}: no sentence {sentence} (it has {n} annotated)"
    E085 = "{source}: a pipeline draws the parse of a text: give it with --text"
    E086 = "{base}: --tagging puts the taggers after the tok2vec, but [nlp] pipeline is {pipeline}"
    E087 = "expected NAME=WIDTH or NAME=WIDTH+merge with a width of at least 1, got '{item}'"
    E088 = "{path}: not a config file: {reason}"
    E089 = "expected NAME:KEY=VALUE (a planar_parser setting of NAME's pipelines), got '{item}'"
    # parses repaired and training reports: an error where never expected (``unexpected``: in tests and with
    # SPACY_PLANAR_DEBUG=1), else a warning
    E092 = "{system}: {count} of {states} states had no valid action before they were final"
    # corpora, packages, vectors, configs, raw text (in the order they were added)
    E100 = "{path}: not a directory"
    E101 = "{first} and {second} would both be written to {output}"
    E102 = "the output folder {out_dir} is inside the input folder {in_dir}: a second run would read its outputs"
    E103 = "--n-process, --local-workers and --scheduler choose one way to run: give one of them"
    E104 = "{option} must be at least 1, got {value}"
    E105 = "{in_dir}: no .txt or .conllu file (compressed or not) in it or below it"
    E106 = "dask.distributed is not installed: pip install 'spacy-planar[cluster]' (or pip install distributed)"
    E107 = "{path}: not a trained pipeline's folder (no meta.json and config.cfg)"
    E108 = ("spacy-planar was installed from a wheel, not a clone: give that wheel with --planar-wheel to put "
            "it beside the package")
    E109 = ("--kbest must be at least 1 and --beam at least 1 (with --kbest or --confidence at least 2 and at least "
            "--kbest), got {kbest} and {beam}")
    E110 = ("the parser's arc probabilities were calibrated for another confidence ('{found}') than this "
            "version maps ('{expected}'): run spacy-planar calibrate on the pipeline again")
    E111 = ("{path}: no vectors in it: give --paths.vectors a directory written by spacy-planar vectors "
            "(or spacy init vectors)")
    E112 = "--{option} must be at least {least}, got {value}"
    E113 = "cannot read it as text: {reason}"
    E115 = ("could not fetch the wheels of {pins} ({reason}): give --no-dependencies and install them "
            "from your index")
    E116 = "{source}: no such pipeline folder, and no installed pipeline package of that name"
    E117 = ("{n} complete output(s) were written by another pipeline than {header} (the first: {first}); "
            "give --overwrite to parse them again with this one")
    E118 = ("{system}: the gold label '{label}' is not among the {n} labels the parser was initialized with; "
            "initialize it on data that has the label, or add it with add_label before initialize")
    E119 = "{source}: neither a CoNLL-U file nor a pipeline"
    E120 = "--text is empty: give the text to parse and draw"
    E121 = "{path}: --diagram writes an SVG picture: give a path ending in .svg"
    E122 = ("--taggers-first trains the taggers of --tagging first, then the parser: {system} with "
            "--tagging has no parser or no taggers (and a transformer shares its encoder)")
    E123 = "--transformer needs spacy-transformers: pip install 'spacy-planar[trf]'"
    E124 = ("this config freezes {components} without training them first (frozen, not sourced): "
            "train it with spacy-planar train, which trains them in a first stage")
    E126 = ("{system}.{hook} gave {shape}, not {expected} (systems/contract.py; None: any size)")
    E127 = "{name}: no UPOS or FEATS in the training data: nothing to learn"
    E128 = "BiLSTMEncoder.v1: width must be even (half of it each way), not {width}"
    E129 = "paired_bootstrap: the two systems must be scored on the same, non-empty sentences"
    E131 = ("{path}: these vectors are of language '{vectors}', the pipeline of '{pipeline}': make vectors "
            "with --lang {pipeline}, or train with --nlp.lang {vectors}")
    E132 = "spaCy has no language '{lang}': give a code spaCy knows (la, hu, grc, ...) or xx (multilingual)"
    E133 = "{path}: the output would overwrite the input; give another output path"
    E134 = "{what} '{value}': expected {rule}"
    E135 = "--accurate sizes the BiLSTM encoder, which --transformer replaces: give one of them"
    E136 = ("an ensemble's pipelines are trained on one treebank (other seeds or other parsers: the same "
            "tok2vec and taggers with the same labels): {reason}")
    E137 = "the pipeline was not trained on a treebank '{name}': it knows {known}"
    E138 = ("{path}: a teacher is a pipeline of the student's config trained on the same treebank (another "
            "seed): {reason}")
    E139 = ("{name}: {key} is learned with the weights in training; the saved pipeline's is {saved!r}, not "
            "{given!r}: load it without setting {key}")
    E140 = "UDPipe 1 is not installed: pip install -e './lab[anchors]' from a clone (or pip install ufal.udpipe)"
    E141 = "{path}: UDPipe 1 could not read or train on it: {reason}"
    E142 = "{path}: [{section}] has no setting '{key}'{hint}; nothing was trained"
    E143 = ("--gpu-id {gpu_id}: no usable GPU here (CuPy with a CUDA device: pip install cupy-cuda12x); "
            "leave --gpu-id out to train on the CPU")
    E144 = ("{path} holds a trained pipeline ({found}): give another --output, or --overwrite to train into it "
            "anew")
    E145 = "training interrupted: {left}"
    E146 = ("no pipeline {name} in the index: not released there (the nearest: {near}); build the ready-made "
            "pipelines from a clone with `spacy project run zoo .` (Latin alone: `spacy project run zoo-la .`), then "
            "download NAME --index packages/dist/index.json")
    E147 = "{url}: its sha256 is {got}, the index says {want}: not installed"
    E148 = "{location}: cannot be reached ({reason}); check the network, or give --index a file"
    E149 = "{location}: not an index of pipelines ({reason})"
    E150 = "pip could not install {name}: {reason}"
    E151 = "{path}: not a spaCy DocBin (.spacy) spaCy can read ({reason})"
    E152 = ("{python} cannot import Stanza: pip install -e './lab[anchors]' from a clone (or pip install stanza), "
            "or give --python a Python that has it")
    E153 = "Stanza's {step} failed (exit {code}); its log: {log}"
    E154 = ("{path}: a training or dev corpus is a DocBin (.spacy), a CoNLL-U file (.conllu) or a folder of "
            "them; none found")
    E155 = "{path}: cannot be written ({reason}); nothing was written there"
    E156 = "{error} (parse-corpus --skip-invalid names such a file, writes no output for it and goes on)"
    E157 = ("{location}: nothing is released there yet ({reason}); build the ready-made pipelines from a clone with "
            "`spacy project run zoo .` (Latin alone: `spacy project run zoo-la .`), then download NAME --index "
            "packages/dist/index.json")
    E158 = ("--kbest with an ensemble of different parsers (or a joint pipeline, whose parse_decider decides from "
            "both): their trees are reparsed into one (no k-best list); leave out --kbest, or ensemble seeds of "
            "one transition system")
    E159 = "spacy-planar.Corpus.v1: sentences must be at least 1, not {sentences}"
    E160 = "spacy-planar.batch_by_words.v1: share must be 0 or more, not {share}"
    E161 = ("spacy-planar lab: the laboratory is not installed (a package of its own): from a clone of "
            "spacy-planar, pip install -c constraints.txt -e ./lab")
    E162 = ("{location}: cannot be reached ({reason}). Nothing has been released there so far (as of spacy-planar "
            "{version}); where the network is there, a clone builds the ready-made pipelines with `spacy project run "
            "zoo .` (Latin alone: `spacy project run zoo-la .`), then download NAME --index packages/dist/index.json")
    E163 = ("{name}: reparse_with = '{other}': {reason}")
    E164 = ("{name}: a planar_ensemble holds no pipelines until it is loaded from its folder (spacy.load of the "
            "pipeline that spacy-planar package --ensemble writes)")
    E165 = ("BiLSTMEncoder.v1: backend = \"torch\" needs PyTorch, which a plain install does not carry: pip install "
            "'spacy-planar[torch]' (or backend = \"thinc\")")
    E166 = "BiLSTMEncoder.v1: backend must be \"thinc\" or \"torch\", not {backend!r}"
    E167 = ("{name}: reparse_with = '{other}' is the joint pipeline of spacy-planar 0.2 and before, which decided "
            "each Doc as one tree; a parse_decider after both parsers decides each sentence now: rewrite the "
            "pipeline's config with `spacy-planar upgrade PIPELINE` (the weights stay as they are)")
    E168 = "{name}: {reason}"
    E169 = ("[training.optimizer] per_word = true needs clip_global = true (the step's gradients are divided by "
            "its words when they are clipped together)")
    E170 = ("{spec!r}: give a treebank as CODE=REPO or CODE=REPO:SPLITS (la_llct=UD_Latin-LLCT:train; splits train, "
            "dev, test)")
    E171 = "{target}: {url} cannot be reached ({reason}); give it locally: {local}"


class Warnings(metaclass=ErrorsWithCodes):
    """What was repaired or left out, by code, in code order (the number of the error it once was)."""
    W090 = ("{name}: {count} of {units} parsed sentences had more than one root; the extra roots were "
            "attached to the root of the largest tree with '{label}'")
    W091 = ("{name}: {count} of {units} parsed sentences were not trees; each was replaced by a flat tree "
            "(its first word the root, the others attached to it with '{label}')")
    W093 = "{system}: {count} of {sentences} sentences fell out of the beam; parsed greedily instead"
    W094 = "{system}: {count} sentences' gold sequences were missing from their beams; left out of the loss"
    W095 = ("{name}: {count} gold words of this update have their head outside their predicted sentence; "
            "each was trained as the root of its sentence (the predicted sentences differ from the gold ones)")
    W096 = ("{name}: in {count} of {units} parsed sentences the inverse of {transforms} would not leave a "
            "tree; those sentences keep the tree as parsed (the transforms' labels cleaned)")
    W097 = "{name}: {count} k-best alternatives were not trees with one root in UD terms; left out"
    W098 = ("{name}: {count} k-best alternatives would not be trees after the inverse of {transforms}; each "
            "keeps the tree as parsed (the transforms' labels cleaned)")
    W099 = "{name}: {count} training examples of this update were left out: {reasons}"
    W125 = ("{name}: {count} gold words of this update are a second root (or a later one) of their "
            "sentence; {system} builds one root, so each was trained as a dependent of the sentence's first root")
    W126 = ("a Doc of {length} tokens kept {kept} sentence starts of the senter's (retokenized after it?); "
            "its own sentences are scored instead")
    W127 = ("{name}: {count} sentences of this update were not among those its teachers were asked about at "
            "initialize; each learned its gold heads alone")
    W128 = ("{name}: {count} of {units} sentences had no parse of {parser} handed over (the Doc was copied or "
            "read back after it ran?): each was decided from the trees on Doc._.trees, as hard votes")
    W129 = ("{name}: {count} of {units} sentences' trees of {parser} were repaired after the parse; those "
            "trees did not vote")
    W130 = ("spacy-planar.Adam.v1: per_word is set but no component gave this step's words (no planar_parser "
            "or biaffine_parser trained in it): its {count} gradients were clipped as sums")


class UserError(ValueError):
    """A value given by the user (an option, a config setting, a file's content) that cannot be used;
    ``code``: its message's code (``Errors``), by which callers tell errors apart."""

    @property
    def code(self) -> str:
        return getattr(self.args[0], "code", "") if self.args else ""


class UnexpectedError(RuntimeError):
    """Something that the code rules out happened (an internal error, not bad input)."""


class UnexpectedWarning(UserWarning):
    """Something that the code rules out happened; the output was kept valid."""


def debugging() -> bool:
    """Whether what is never expected raises (``SPACY_PLANAR_DEBUG=1``; the tests set it)."""
    return os.environ.get("SPACY_PLANAR_DEBUG", "") not in ("", "0")


def unexpected(message: str) -> None:
    """Report what is never expected: raise ``UnexpectedError`` when
    debugging, else warn once (the caller counts, so one warning per batch)."""
    if debugging():
        raise UnexpectedError(message)
    warnings.warn(message, UnexpectedWarning, stacklevel=2)


class InputError(UserError):
    """Bad input at a line of a file (a CoNLL-U file, raw text): names the file, the line and the
    reason (a message of ``Errors``, whose code it keeps)."""

    def __init__(self, path: str, line: int, reason: str):
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(Message(f"{self.path}:{line}: {reason}", getattr(reason, "code", "")))

    def __reduce__(self):  # pickled by its parts: it crosses process pools and Dask
        return (type(self), (self.path, self.line, self.reason))


class ConlluError(InputError):
    """Bad CoNLL-U input: names the file, the line and the reason."""
