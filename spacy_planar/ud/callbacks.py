"""The UD configs' ``[initialize.before_init]`` callback.

``leave_out_unlabelled``: a UD treebank need not fill every column (many have
no XPOS, some no FEATS); spaCy's tagger then finds no label and ``spacy
train`` stops with E143. The UD pipeline (``configs/ud.cfg``) instead leaves
out, before it is initialised, each tagging component whose column the
training corpus never fills, and says so in one line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.util import registry

from spacy_planar.errors import Errors, UserError
from spacy_planar.io.readers import corpus_docs, corpus_files

# factory -> the labels it would learn from a token (empty: none), and the CoNLL-U columns they come from
LABELS: Dict[str, Tuple[Callable, str]] = {
    "tagger": (lambda t: t.tag_, "XPOS"),
    "morphologizer": (lambda t: (t.pos_, str(t.morph)) if (t.pos_ or str(t.morph)) else "", "UPOS or FEATS"),
    "lexicon_lemmatizer": (lambda t: t.lemma_, "LEMMA"),
    "trainable_lemmatizer": (lambda t: t.lemma_, "LEMMA"),
}


def label_counts(path: Path, vocab, enough: int = 2) -> Dict[str, int]:
    """How many distinct labels (up to ``enough``) the corpus at ``path``
    (a .spacy or .conllu file or a directory of them: ``readers.corpus_files``)
    gives each factory of ``LABELS``."""
    seen: Dict[str, set] = {factory: set() for factory in LABELS}
    for file in corpus_files(path):
        for doc in corpus_docs(file, vocab):
            for factory, (label, _) in LABELS.items():
                if len(seen[factory]) < enough:
                    seen[factory].update(x for x in map(label, doc) if x)
            if all(len(s) >= enough for s in seen.values()):  # no need to read further files either
                return {factory: enough for factory in seen}
    return {factory: min(len(s), enough) for factory, s in seen.items()}


@registry.callbacks("spacy-planar.leave_out_unlabelled.v1")
def make_leave_out_unlabelled(path: Optional[Path]) -> Callable[[Language], Language]:
    """A ``before_init`` callback: the tagging components (tagger,
    morphologizer) for which the training corpus at ``path`` has fewer than
    two labels (an empty column: nothing to learn, and spaCy's taggers would
    stop) are removed from the pipeline, each with a one-line notice
    (``path`` None: nothing is checked). A frozen component never trained
    (a config in two stages, ``stages.py``, given to ``spacy train``) stops
    it with E124: ``spacy-planar train`` runs the stages.
    """

    def leave_out_unlabelled(nlp: Language) -> Language:
        # frozen components (disabled while the rest initialise) never trained, their output width unset (not
        # sourced, nor trained by spacy-planar train's first stage): spacy train of a two-stage config would train
        # the parser on them
        untrained = [name for name in nlp.config["training"]["frozen_components"] if name in nlp.component_names
                     and isinstance(nlp.get_pipe(name), TrainablePipe)
                     and nlp.get_pipe(name).model.has_dim("nO") is None]
        if untrained:
            raise UserError(Errors.E124.format(components=", ".join(untrained)))
        if path is None:
            return nlp
        counts = label_counts(Path(path), nlp.vocab)
        for name in list(nlp.pipe_names):
            factory = nlp.get_pipe_meta(name).factory
            if factory in LABELS and counts[factory] < 2:
                nlp.remove_pipe(name)
                # print, not wasabi: its messages wrap at 80 columns, and a notice is one line
                print(f"ℹ {name}: {path} has no {LABELS[factory][1]} (fewer than two labels); left out of the "
                      "pipeline", flush=True)
        return nlp

    return leave_out_unlabelled
