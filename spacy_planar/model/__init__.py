"""The encoders and what they are built of, Thinc models every parser and tagger can listen to:
the tags-reading tok2vecs (``spacy-planar.WithTags.v1``, ``spacy-planar.WithMorphology.v1``), the
character CNN embedding with static vectors (``spacy-planar.CharEmbed.v3``), the BiLSTM encoder
(``spacy-planar.BiLSTMEncoder.v1``), the tok2vec that encodes each sentence apart
(``spacy-planar.Tok2Vec.v1``), the BLAS setting and the fused Adam. Each parser's own model lives
beside its parser: ``parser/transition/parser_model.py`` (``PlanarParserModel.v1``),
``parser/graph/biaffine.py`` (``BiaffineModel.v2``)."""
from spacy_planar.model.bilstm import build_bilstm_encoder
from spacy_planar.model.blas import make_numpy_blas
from spacy_planar.model.chars import build_char_embed
from spacy_planar.model.tok2vec import build_tok2vec
from spacy_planar.model.with_tags import build_with_morphology, build_with_tags

__all__ = ["build_bilstm_encoder", "build_char_embed", "build_tok2vec", "build_with_morphology", "build_with_tags",
           "make_numpy_blas"]
