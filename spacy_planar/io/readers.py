"""``spacy-planar.Corpus.v1``: a treebank's gold words in runs of sentences.

spaCy's ``Corpus`` with ``gold_preproc = true`` (the gold words: spaCy's
tokenizer would split them otherwise) makes each sentence an Example of its
own, so a sentence splitter (``senter``) trained on it never sees a sentence
end inside a Doc. This reader keeps the gold words and puts ``sentences``
consecutive sentences of the DocBin in one Example (``# newdoc`` starts a new
one), the gold sentence starts set on the predicted Doc too: the senter learns
where sentences end from the reference; the components after it read the
gold sentences as they read the senter's at parse time (the parser parses each
sentence, ``spacy-planar.Tok2Vec.v1`` encodes each apart), so nothing else
learns from the neighbouring sentences. The CoNLL-U lines the reference
Docs keep (``Doc.user_data["conllu"]``: the multiword tokens) are kept
for the whole run, and the predicted Doc is marked as given words
(``WORDS_GIVEN``: the ``multiword_tokens`` component leaves it as it is).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.tokens import Doc
from spacy.training import Example
from spacy.training.batchers import configure_minibatch_by_words
from spacy.training.corpus import walk_corpus
from spacy.util import registry

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import (TREEBANK_KEY, TREEBANKS_KEY, USER_DATA_KEY, conllu_to_docs, read_conllu,
                                    treebank_name)
from spacy_planar.io.doc_trees import words_copy
from spacy_planar.io.docbins import docbin_docs, load_docbin

# Doc.user_data key of a Doc whose tokens are already the syntactic words (a treebank's, CoNLL-U input)
WORDS_GIVEN = "spacy_planar_words_given"


@registry.readers("spacy-planar.Corpus.v1")
def create_corpus(path: Union[str, Path], sentences: int = 10, max_length: int = 0, limit: int = 0,
                  treebanks: Optional[Union[str, Sequence[str]]] = None,
                  ) -> Callable[["Language"], Iterable[Example]]:  # noqa: F821
    """Examples of up to ``sentences`` consecutive sentences of the DocBin
    or CoNLL-U files at ``path`` (a file or a folder), on their gold words and gold
    sentence starts. ``max_length``: leave out sentences longer than this
    (0: none); ``limit``: read at most this many sentences of each treebank
    (0: all).

    ``treebanks``: other treebanks to learn from beside ``path`` (the
    target): DocBin files or folders, a list or one string of them
    separated by commas; their runs follow the target's. Each Doc says its treebank
    (``TREEBANK_KEY``: the name ``convert`` kept, else the file's
    ``treebank_name``) and every treebank the reader reads, the target's
    first (``TREEBANKS_KEY``), which a treebank embedding (``CharEmbed.v3``'s
    ``treebank_width``) learns from (Stymne et al. 2018)."""
    if sentences < 1:
        raise UserError(Errors.E159.format(sentences=sentences))
    others = treebank_paths(treebanks)

    def read(nlp) -> Iterator[Example]:
        target = list(sentence_runs(nlp.vocab, path, sentences, max_length, limit))
        extra = [run for other in others for run in sentence_runs(nlp.vocab, other, sentences, max_length, limit)]
        names = tuple(dict.fromkeys(name for name, _ in target + extra))
        for name, run in target + extra:
            yield run_example(nlp.vocab, run, name, names)

    return read


@registry.batchers("spacy-planar.batch_by_words.v1")
def configure_batches(size: Union[int, Sequence[int]], tolerance: float, discard_oversize: bool = False,
                      get_length: Optional[Callable] = None, share: float = 0.0) -> Callable:
    """spaCy's ``batch_by_words.v1`` over what an epoch holds of several
    treebanks: every Example of the target and, of the other treebanks'
    (``create_corpus``'s ``treebanks``), the first in the epoch's shuffled
    order until their words reach ``share`` times the target's (0: all of
    them). spaCy's training shuffles the Examples anew each epoch, so each
    epoch draws other sentences, and an epoch costs (1 + share) times the
    target's alone however large the others are. One treebank: spaCy's
    batches as they are."""
    if share < 0:
        raise UserError(Errors.E160.format(share=share))
    batch = configure_minibatch_by_words(size=size, tolerance=tolerance, discard_oversize=discard_oversize,
                                         get_length=get_length)

    def batches(items: Iterable[Example]) -> Iterator[List[Example]]:
        return batch(target_share(items, share) if share else items)

    return batches


def target_share(examples: Iterable[Example], share: float) -> List[Example]:
    """The Examples of the target (the reader's first treebank) and, in
    their order, others up to ``share`` times the target's words."""
    examples = list(examples)
    names = [(eg.predicted.user_data.get(TREEBANK_KEY), eg.predicted.user_data.get(TREEBANKS_KEY) or ())
             for eg in examples]
    is_target = [not known or name == known[0] for name, known in names]
    budget = share * sum(len(eg.predicted) for eg, mine in zip(examples, is_target) if mine)
    out = []
    for eg, mine in zip(examples, is_target):
        if not mine:
            if budget <= 0:
                continue
            budget -= len(eg.predicted)
        out.append(eg)
    return out


def treebank_paths(treebanks: Optional[Union[str, Sequence[str]]]) -> List[str]:
    """The reader's ``treebanks`` as a list of paths, each of which must exist."""
    if not treebanks:
        return []
    paths = [p.strip() for p in treebanks.split(",")] if isinstance(treebanks, str) else list(treebanks)
    for p in paths:
        if not Path(p).exists():
            raise FileNotFoundError(Errors.E031.format(path=p))
    return [p for p in paths if p]


def sentence_runs(vocab, path: Union[str, Path], sentences: int, max_length: int, limit: int
                  ) -> Iterator[Tuple[str, List[Doc]]]:
    """(treebank, up to ``sentences`` consecutive sentences) of the DocBin
    files at ``path``; a run ends at a file's end and where a document starts."""
    run: List[Doc] = []
    name = ""
    for sent_name, sent in gold_sentences(vocab, path, max_length, limit):
        if run and (len(run) == sentences or starts_document(sent) or sent_name != name):
            yield name, run
            run = []
        name = sent_name
        run.append(sent)
    if run:
        yield name, run


# what a training or dev corpus is made of: DocBins, and CoNLL-U converted as it is read (as ``convert`` does)
CORPUS_SUFFIXES = (".spacy", ".conllu")


def corpus_files(path: Union[str, Path]) -> List[Path]:
    """The DocBin (.spacy) and CoNLL-U (.conllu) files at ``path``: the file,
    or those in the folder and below, in order; E154 where there are none
    (spaCy's readers would read nothing and fail later, with E923)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(Errors.E031.format(path=path))
    found = [path] if path.is_file() else [f for suffix in CORPUS_SUFFIXES for f in walk_corpus(path, suffix)]
    files = sorted(Path(f) for f in found if Path(f).suffix in CORPUS_SUFFIXES)
    if not files:
        raise UserError(Errors.E154.format(path=path))
    return files


def check_corpus_file(file: Path) -> None:
    """Read a corpus file as training will, to refuse a bad one first: every sentence of a
    CoNLL-U file checked (``read_conllu``: file, line, reason), a DocBin's bytes loaded (E151)."""
    if file.suffix == ".conllu":
        for _ in read_conllu(file):
            pass
    else:
        load_docbin(file)


def corpus_docs(file: Path, vocab) -> Iterator[Doc]:
    """The Docs of a corpus file: a DocBin's, or a CoNLL-U file's sentences."""
    if file.suffix == ".conllu":
        return conllu_to_docs(file, vocab)
    return docbin_docs(load_docbin(file), vocab)


def gold_sentences(vocab, path: Union[str, Path], max_length: int, limit: int) -> Iterator[Tuple[str, Doc]]:
    """Each sentence of the corpus files at ``path`` (``corpus_files``) as a
    Doc of its own, with the name of its treebank."""
    n = 0
    for file in corpus_files(path):
        for doc in corpus_docs(file, vocab):
            name = doc.user_data.get(TREEBANK_KEY) or treebank_name(file)
            for sent in sentence_docs(doc):
                if len(sent) == 0 or (max_length and len(sent) > max_length):
                    continue
                yield name, sent
                n += 1
                if limit and n >= limit:
                    return


def sentence_docs(doc: Doc) -> List[Doc]:
    """A Doc's sentences as Docs, each with its own CoNLL-U lines."""
    stored = doc.user_data.get(USER_DATA_KEY, {}).get("sents")
    if not doc.has_annotation("SENT_START") and not doc.has_annotation("DEP"):
        return [doc]
    sents = list(doc.sents)
    if len(sents) == 1:
        return [doc]
    out = []
    for k, span in enumerate(sents):
        sent = span.as_doc()
        if stored and len(stored) == len(sents):
            sent.user_data[USER_DATA_KEY] = {"sents": [stored[k]]}
        out.append(sent)
    return out


def starts_document(sent: Doc) -> bool:
    """Whether a sentence opens a document (``# newdoc``)."""
    stored = sent.user_data.get(USER_DATA_KEY, {}).get("sents") or [{}]
    return any(c.startswith("# newdoc") for c in stored[0].get("comments", []))


def run_example(vocab, run: List[Doc], treebank: str = "", treebanks: Tuple[str, ...] = ()) -> Example:
    """One Example of consecutive sentences: the reference their Docs
    joined (their CoNLL-U lines too), the predicted Doc their words, spaces
    and sentence starts, marked as given words and with their treebank."""
    stored = [s for sent in run for s in sent.user_data.get(USER_DATA_KEY, {}).get("sents", [])]
    if len(run) > 1:
        for sent in run:  # joined here, not by from_docs (which keeps only span-keyed user data)
            sent.user_data.pop(USER_DATA_KEY, None)
            sent.user_data.pop(TREEBANK_KEY, None)
        reference = Doc.from_docs(run, ensure_whitespace=True)
    else:
        reference = run[0]
    if len(stored) == len(run):
        reference.user_data[USER_DATA_KEY] = {"sents": stored}
    starts = [True] + [False] * (len(run[0]) - 1)
    for sent in run[1:]:
        starts += [True] + [False] * (len(sent) - 1)
    predicted = words_copy(vocab, reference, starts)
    predicted.user_data[WORDS_GIVEN] = True
    if treebank:
        for doc in (predicted, reference):
            doc.user_data[TREEBANK_KEY] = treebank
            doc.user_data[TREEBANKS_KEY] = treebanks
    return Example(predicted, reference)
