"""The word encoders of spacy_planar.model: the character CNN (CharEmbed.v1)."""
import numpy as np
import spacy
from spacy.tokens import Doc
from spacy.util import registry

from spacy_planar.model.chars import build_char_embed


def char_model(width=24):
    embed = registry.architectures.get("spacy.MultiHashEmbed.v2")(
        width=16, attrs=["NORM", "PREFIX", "SUFFIX", "SHAPE"], rows=[500, 100, 100, 100],
        include_static_vectors=False)
    return build_char_embed(embed, width=width, char_width=8, cnn_width=12, max_chars=6, rows=300)


def test_char_cnn_reads_each_word_alone_and_its_characters_in_order():
    """A word's character vector depends on its characters only (not on the
    batch, its neighbours or its place), in their order, and on its first
    ``max_chars`` only; the mixed output has the tok2vec's width, also for a
    Doc without words; gradients reach the character embeddings."""
    vocab = spacy.blank("xx").vocab
    a = Doc(vocab, words=["guþ", "guþis", "sig", "gis", "abcdefXX", "abcdefYY"])
    b = Doc(vocab, words=["jah", "guþis"])
    model = char_model()
    model.initialize([a, b])
    chars = model.layers[0].layers[1]  # concatenate(embed, chars)
    together = chars.predict([a, Doc(vocab, words=[]), b])
    alone = chars.predict([b])
    assert [x.shape for x in together] == [(6, 12), (0, 12), (2, 12)]
    np.testing.assert_allclose(together[2], alone[0], atol=1e-6)  # no batch effect
    np.testing.assert_allclose(together[0][1], together[2][1], atol=1e-6)  # "guþis" in either Doc
    assert not np.allclose(together[0][2], together[0][3])  # "sig" and "gis": the same letters, in order
    np.testing.assert_allclose(together[0][4], together[0][5], atol=1e-6)  # only the first 6 characters
    out, backprop = model([a, Doc(vocab, words=[])], is_train=True)
    assert [y.shape for y in out] == [(6, 24), (0, 24)]
    backprop([np.ones_like(y) for y in out])
    table = next(n for n in chars.walk() if n.name == "hashembed")
    assert np.abs(table.get_grad("E")).sum() > 0


def test_the_shipped_tok2vec_reads_characters_and_the_cnn_anchor_does_not():
    """base.cfg's embedding, in every shipped config but spacy_parser_cnn,
    is CharEmbed.v1 around exactly the embedding spacy_parser_cnn.cfg (spaCy's
    own, as `spacy init config` writes it) has; a model built from it runs."""
    from pathlib import Path

    from thinc.api import Config

    configs = Path(__file__).resolve().parents[1] / "configs"

    def embed(name):
        return Config().from_disk(configs / f"{name}.cfg", interpolate=False)["components"]["tok2vec"]["model"]["embed"]

    own = embed("spacy_parser_cnn")
    assert own["@architectures"] == "spacy.MultiHashEmbed.v2"
    for name in ("arc_eager", "planar", "two_planar", "swap", "top_down", "spacy_parser", "ud", "ud_spacy_parser"):
        wrapped = embed(name)
        assert wrapped["@architectures"] == "spacy-planar.CharEmbed.v1" and wrapped["embed"] == own, name
    nlp = spacy.blank("xx")
    nlp.add_pipe("planar_parser")  # the factory's own tok2vec: base.cfg's
    nlp.initialize()
    doc = nlp(Doc(nlp.vocab, words=["jah", "qaþ", "imma", "."]))
    assert sum(t.head == t for t in doc) == 1
