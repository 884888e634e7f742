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


def test_a_tok2vec_with_characters_trains_with_spacy_train(tmp_path):
    """`init-config two_planar OUT --chars` puts base.cfg's embedding, as it
    is, inside CharEmbed.v1; the config trains with `spacy train` and
    parses."""
    import subprocess
    import sys

    from spacy.tokens import DocBin
    from thinc.api import Config
    from typer.testing import CliRunner

    from conftest import treebank
    from spacy_planar.cli import app
    from spacy_planar.conllu_io import conllu_to_docs

    config = tmp_path / "chars.cfg"
    assert CliRunner().invoke(app, ["init-config", "two_planar", str(config), "--chars"]).exit_code == 0
    plain = tmp_path / "plain.cfg"
    assert CliRunner().invoke(app, ["init-config", "two_planar", str(plain)]).exit_code == 0
    embed = Config().from_disk(config, interpolate=False)["components"]["tok2vec"]["model"]["embed"]
    assert embed["@architectures"] == "spacy-planar.CharEmbed.v1"
    assert embed["embed"] == Config().from_disk(plain, interpolate=False)["components"]["tok2vec"]["model"]["embed"]
    corpus = tmp_path / "small.spacy"
    DocBin(docs=list(conllu_to_docs(treebank("got_proiel", "dev"), spacy.blank("xx").vocab))[:60]).to_disk(corpus)
    cmd = [sys.executable, "-m", "spacy", "train", str(config), "--output", str(tmp_path / "out"),
           "--paths.train", str(corpus), "--paths.dev", str(corpus), "--training.max_steps", "4",
           "--training.eval_frequency", "2"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    doc = nlp("jah qaþ imma .")
    assert sum(t.head == t for t in doc) == 1
