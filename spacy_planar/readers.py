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
from typing import Callable, Iterable, Iterator, List, Union

from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.training.corpus import walk_corpus
from spacy.util import registry

from .conllu_io import USER_DATA_KEY

# Doc.user_data key of a Doc whose tokens are already the syntactic words (a treebank's, CoNLL-U input)
WORDS_GIVEN = "spacy_planar_words_given"


@registry.readers("spacy-planar.Corpus.v1")
def create_corpus(path: Union[str, Path], sentences: int = 10, max_length: int = 0, limit: int = 0
                  ) -> Callable[["Language"], Iterable[Example]]:  # noqa: F821
    """Examples of up to ``sentences`` consecutive sentences of the DocBin
    files at ``path`` (a file or a folder), on their gold words and gold
    sentence starts. ``max_length``: leave out sentences longer than this
    (0: none); ``limit``: read at most this many sentences (0: all)."""
    if sentences < 1:
        raise ValueError(f"spacy-planar.Corpus.v1: sentences must be at least 1, got {sentences}")

    def read(nlp) -> Iterator[Example]:
        run: List[Doc] = []
        for sent in gold_sentences(nlp.vocab, path, max_length, limit):
            if run and (len(run) == sentences or starts_document(sent)):
                yield run_example(nlp.vocab, run)
                run = []
            run.append(sent)
        if run:
            yield run_example(nlp.vocab, run)

    return read


def gold_sentences(vocab, path: Union[str, Path], max_length: int, limit: int) -> Iterator[Doc]:
    """Each sentence of the DocBin files at ``path`` as a Doc of its own."""
    n = 0
    for file in walk_corpus(path, ".spacy"):
        for doc in DocBin().from_disk(file).get_docs(vocab):
            for sent in sentence_docs(doc):
                if len(sent) == 0 or (max_length and len(sent) > max_length):
                    continue
                yield sent
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


def run_example(vocab, run: List[Doc]) -> Example:
    """One Example of consecutive sentences: the reference their Docs
    joined (their CoNLL-U lines too), the predicted Doc their words, spaces
    and sentence starts, marked as given words."""
    stored = [s for sent in run for s in sent.user_data.get(USER_DATA_KEY, {}).get("sents", [])]
    if len(run) > 1:
        for sent in run:  # joined here, not by from_docs (which keeps only span-keyed user data)
            sent.user_data.pop(USER_DATA_KEY, None)
        reference = Doc.from_docs(run, ensure_whitespace=True)
    else:
        reference = run[0]
    if len(stored) == len(run):
        reference.user_data[USER_DATA_KEY] = {"sents": stored}
    starts = [True] + [False] * (len(run[0]) - 1)
    for sent in run[1:]:
        starts += [True] + [False] * (len(sent) - 1)
    predicted = Doc(vocab, words=[t.text for t in reference], spaces=[bool(t.whitespace_) for t in reference],
                    sent_starts=starts)
    predicted.user_data[WORDS_GIVEN] = True
    return Example(predicted, reference)
