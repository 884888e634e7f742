"""CoNLL-U sentences -> spaCy ``Doc`` (the mapping is in the package's
docstring), and the keys of ``Doc.user_data`` this package reads and writes:
the CoNLL-U lines kept for writing back, the k-best parses, the arc
probabilities and the moves' log-probabilities."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

from spacy_planar.errors import ConlluError, Errors, UserError
from spacy_planar.io.conllu.reading import Sentence, SkipReport, read_conllu

USER_DATA_KEY = "conllu"


# where the parser keeps k-best parses ([(start, end, [{"prob", "heads", "labels"}, ...])]) and
# arc probabilities (one per token) in ``Doc.user_data`` (``parser/shared/extensions.py`` reads them)
PARSES_KEY = "spacy_planar_parses"


HEAD_PROBS_KEY = "spacy_planar_head_probs"
# the decimals an arc probability keeps, in ``Doc.user_data`` and as ``HeadProb`` in a written file alike
# (so a file's calibration and ranking are those of the pipeline that wrote it)
HEAD_PROB_DECIMALS = 4


# the multiword tokens of a Doc made from raw text ([first word, last word, surface form], the
# ``multiword_tokens`` component's), which the writer writes as range lines
MWT_KEY = "spacy_planar_mwt"


# the treebank a Doc's sentences come from (``convert`` sets it: ``--treebank``, else ``treebank_name``), which
# a pipeline trained on several treebanks reads (``model/treebanks.py``) to write in that treebank's style
# Doc.user_data: the comments a raw-text Doc's first sentence opens with (# newdoc, # newpar: parse_file)
PARAGRAPH_KEY = "spacy_planar_paragraph"
TREEBANK_KEY = "spacy_planar_treebank"
# and the treebanks a training reader reads, the target first (``readers.py``; a treebank embedding's rows)
TREEBANKS_KEY = "spacy_planar_treebanks"


_UD_FILE = re.compile(r"^(?P<name>.+?)-ud-(?:train|dev|test)$")
_SPLITS = {"train", "dev", "test"}


def treebank_name(path: Union[str, Path]) -> str:
    """The treebank a file holds, by its name: UD's ``la_ittb-ud-train.conllu``
    -> ``la_ittb``; a split named by itself (``la_ittb/train.conllu``,
    ``corpus/la_ittb/dev.spacy``) -> its folder's name; else the file's stem.

    >>> treebank_name("UD_Latin-ITTB/la_ittb-ud-dev.conllu"), treebank_name("la_llct/train.spacy")
    ('la_ittb', 'la_llct')
    """
    path = Path(path)
    stem = path.name.split(".")[0]
    ud = _UD_FILE.match(stem)
    if ud:
        return ud.group("name")
    if stem in _SPLITS and path.resolve().parent.name:
        return path.resolve().parent.name
    return stem


# and per token the log-probability of the move that gave it its head in the best derivation
# (what ``spacy-planar calibrate`` fits on, with the parses)
MOVE_LOGP_KEY = "spacy_planar_move_logp"


def _blank(value: str) -> str:
    return "" if value == "_" else value


def sentences_to_doc(vocab, sents: Sequence[Sentence]):
    """One ``Doc`` holding ``sents`` (their words as tokens, in order), what the Doc cannot hold
    (comments, MISC, DEPS, ranges, empty nodes) in its user data."""
    annotated = {s.heads is not None for s in sents}
    if len(annotated) > 1:
        raise UserError(Errors.E021)
    doc = _new_doc(vocab, sents)
    stored = [_stored(sent) for sent in sents]
    _keep_feats_as_written(doc, sents, stored)
    doc.user_data[USER_DATA_KEY] = {"sents": stored}
    return doc


def _new_doc(vocab, sents: Sequence[Sentence]):
    """The Doc of the sentences' columns: words, spaces (none inside a multiword token), lemmas,
    UPOS, XPOS, FEATS, and the trees (else the sentence starts)."""
    from spacy.tokens import Doc

    words: List[str] = []
    spaces: List[bool] = []
    lemmas: List[str] = []
    pos: List[str] = []
    tags: List[str] = []
    morphs: List[str] = []
    heads: List[int] = []
    deps: List[str] = []
    sent_starts: List[bool] = []
    for sent in sents:
        offset = len(words)
        inside = set()
        for first, last, _ in sent.ranges:
            inside.update(range(first, last))  # all but the range's last word
        words.extend(sent.forms)
        spaces.extend(True if i in inside else sp for i, sp in enumerate(sent.space_after))
        lemmas.extend(_blank(x) for x in sent.lemmas)
        pos.extend(_blank(x) for x in sent.upos)
        tags.extend(_blank(x) for x in sent.xpos)
        morphs.extend(_blank(x) for x in sent.feats)
        if sent.heads is not None:
            heads.extend(offset + i if h == 0 else offset + h - 1 for i, h in enumerate(sent.heads))
            deps.extend(sent.deprels)
        sent_starts.extend([True] + [False] * (len(sent) - 1))
    try:
        return Doc(vocab, words=words, spaces=spaces, lemmas=lemmas, pos=pos, tags=tags, morphs=morphs,
                   heads=heads or None, deps=deps or None, sent_starts=None if heads else sent_starts)
    except ValueError as e:
        # the only check spaCy adds to ours: UPOS must be a UD tag
        bad = next((i for i, p in enumerate(pos) if p and p not in _UPOS), None)
        if bad is None:
            raise
        sent, i = _locate(sents, bad)
        raise ConlluError(sent.path, sent.word_lines[i],
                          Errors.E013.format(reason=f"UPOS '{pos[bad]}' is not a UD tag")) from e


def _stored(sent: Sentence) -> Dict:
    """What a sentence keeps in the Doc's user data: its comments, MISC, DEPS, ranges, empty
    nodes, and the DEPREL of a sentence without heads where it has some."""
    entry = {
        "n": len(sent), "comments": sent.comments, "misc": sent.misc, "deps": sent.deps,
        "ranges": [[a, b, c] for a, b, c in sent.ranges], "empty": [[a, b] for a, b in sent.empty],
    }
    if sent.heads is None and any(d != "_" for d in sent.deprels):
        entry["deprels"] = sent.deprels
    return entry


def _keep_feats_as_written(doc, sents: Sequence[Sentence], stored: List[Dict]) -> None:
    """FEATS that spaCy normalises differently are kept as written (in each sentence's entry)."""
    start = 0
    for sent, entry in zip(sents, stored):
        over = {}
        for i, raw in enumerate(sent.feats):
            if raw != "_" and str(doc[start + i].morph) != raw:
                over[str(i)] = raw
        if over:
            entry["feats"] = over
        start += len(sent)


_UPOS = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
         "PUNCT", "SCONJ", "SYM", "VERB", "X"}


def _locate(sents: Sequence[Sentence], index: int) -> Tuple[Sentence, int]:
    for sent in sents:
        if index < len(sent):
            return sent, index
        index -= len(sent)
    raise IndexError(index)


def conllu_to_docs(path: Union[str, Path], vocab, n_sents: int = 1, skip_invalid: bool = False,
                   report: Optional[SkipReport] = None) -> Iterator:
    """Stream Docs of ``n_sents`` sentences each from a CoNLL-U file."""
    batch: List[Sentence] = []
    for sent in read_conllu(path, skip_invalid=skip_invalid, report=report):
        if batch and (len(batch) == n_sents or (batch[0].heads is None) != (sent.heads is None)):
            yield sentences_to_doc(vocab, batch)
            batch = []
        batch.append(sent)
    if batch:
        yield sentences_to_doc(vocab, batch)
