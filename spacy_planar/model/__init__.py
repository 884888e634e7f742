"""The parser's Thinc model (``spacy-planar.PlanarParserModel.v1``), and the
tags-reading tok2vecs (``spacy-planar.WithTags.v1``, ``spacy-planar.WithMorphology.v1``) and the
character CNN embedding with static vectors (``spacy-planar.CharEmbed.v3``), and the BiLSTM encoder
(``spacy-planar.BiLSTMEncoder.v1``), and the tok2vec that encodes each sentence apart
(``spacy-planar.Tok2Vec.v1``), and the graph-based parser's biaffine scorer
(``spacy-planar.BiaffineModel.v2``; v1 for pipelines saved before)."""
from spacy_planar.model.biaffine import build_biaffine_model, build_biaffine_model_v2
from spacy_planar.model.bilstm import build_bilstm_encoder
from spacy_planar.model.blas import make_numpy_blas
from spacy_planar.model.chars import build_char_embed
from spacy_planar.model.parser_model import StateScorer, build_planar_parser_model
from spacy_planar.model.tok2vec import build_tok2vec
from spacy_planar.model.with_tags import build_with_morphology, build_with_tags

__all__ = ["StateScorer", "build_biaffine_model", "build_biaffine_model_v2", "build_bilstm_encoder", "build_char_embed",
           "build_planar_parser_model", "build_tok2vec", "build_with_morphology", "build_with_tags",
           "make_numpy_blas"]
