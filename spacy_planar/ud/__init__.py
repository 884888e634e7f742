"""What the UD pipeline has beside the parser: the treebank's tokens and multiword tokens
(``multiword_tokens``, ``words.py``), each FEATS attribute apart (``feature_morphologizer``,
``feats.py``), lemmas (``lexicon_lemmatizer``, ``lemmatizer.py``), the callbacks of its configs
(``callbacks.py``), the sentence splitter scored on its own predictions (``planar_senter``,
``senter.py``) and training in two stages (``stages.py``). Importing it registers the factories."""
from spacy_planar.ud.callbacks import make_leave_out_unlabelled
from spacy_planar.ud.feats import make_feature_morphologizer
from spacy_planar.ud.lemmatizer import make_lexicon_lemmatizer
from spacy_planar.ud.senter import make_planar_senter, make_senter_scorer
from spacy_planar.ud.words import make_multiword_tokens

__all__ = ["make_feature_morphologizer", "make_leave_out_unlabelled", "make_lexicon_lemmatizer",
           "make_multiword_tokens", "make_planar_senter", "make_senter_scorer"]
