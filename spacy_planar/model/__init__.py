"""The parser's Thinc model (``spacy-planar.PlanarParserModel.v1``), and the
tags-reading tok2vecs (``spacy-planar.WithTags.v1``, ``spacy-planar.WithMorphology.v1``) and the
character CNN embedding with static vectors (``spacy-planar.CharEmbed.v2``), and the BiLSTM encoder
(``spacy-planar.BiLSTMEncoder.v1``), and the tok2vec that encodes each sentence apart
(``spacy-planar.Tok2Vec.v1``)."""
from .bilstm import build_bilstm_encoder
from .chars import build_char_embed, build_char_embed_v1
from .parser_model import StateScorer, build_planar_parser_model
from .tok2vec import build_tok2vec
from .with_tags import build_with_morphology, build_with_tags

__all__ = ["StateScorer", "build_bilstm_encoder", "build_char_embed", "build_char_embed_v1",
           "build_planar_parser_model", "build_tok2vec", "build_with_morphology", "build_with_tags"]
