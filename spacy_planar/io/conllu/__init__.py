"""CoNLL-U <-> spaCy ``Doc``, lossless for the treebank's annotation, in rooms by job:
``reading`` (read and check, line by line), ``docs`` (sentences -> Doc, the
``Doc.user_data`` keys), ``writing`` (Doc -> CoNLL-U, atomic files),
``kbest_blocks`` (the k-best blocks and ``HeadProb``), ``files`` (DocBin
conversions, round trips). The names below are the package's public ones.

Mapping to spaCy: the syntactic words are the tokens; LEMMA -> ``lemma_``,
UPOS -> ``pos_``, XPOS -> ``tag_``, FEATS -> ``morph``, HEAD/DEPREL ->
``head``/``dep_`` (HEAD 0: the token is its own head), ``SpaceAfter=No`` ->
no whitespace. Words inside a multiword token are separated by a space in
``Doc.text`` (so that re-tokenising the text cannot glue them together: "de o",
never "deo"); the surface form and the range line are kept in
``Doc.user_data["conllu"]``, which ``DocBin(store_user_data=True)`` saves.
A sentence whose HEADs are all ``_`` is not annotated: its Doc has no parse.
"""
from spacy_planar.io.conllu.docs import (
                   HEAD_PROB_DECIMALS, HEAD_PROBS_KEY,
                   MOVE_LOGP_KEY,
                   MWT_KEY,
                   PARAGRAPH_KEY,
                   PARSES_KEY,
                   TREEBANK_KEY,
                   TREEBANKS_KEY,
                   USER_DATA_KEY,
                   conllu_to_docs,
                   sentences_to_doc,
                   treebank_name,
)
from spacy_planar.io.conllu.files import (conllu_to_docbin, conllu_to_paragraphs, docbin_to_conllu, read_docbin,
                                         roundtrip_diffs)
from spacy_planar.io.conllu.kbest_blocks import head_prob
from spacy_planar.io.conllu.reading import (
                   Sentence,
                   SkipReport,
                   check_input,
                   file_kind,
                   is_word_line,
                   read_conllu,
                   read_utf8,
)
from spacy_planar.io.conllu.writing import atomic_output, doc_to_conllu, docs_to_conllu, ud_feats, write_conllu

__all__ = ["HEAD_PROB_DECIMALS", "HEAD_PROBS_KEY",
           "MOVE_LOGP_KEY", "MWT_KEY", "PARAGRAPH_KEY", "PARSES_KEY", "TREEBANK_KEY", "TREEBANKS_KEY",
           "USER_DATA_KEY", "Sentence", "SkipReport",
           "atomic_output", "conllu_to_paragraphs",
           "check_input", "conllu_to_docbin", "conllu_to_docs", "doc_to_conllu", "docbin_to_conllu", "docs_to_conllu",
           "file_kind", "head_prob", "is_word_line", "read_conllu", "read_docbin", "read_utf8", "roundtrip_diffs",
           "sentences_to_doc", "treebank_name", "ud_feats", "write_conllu"]
