"""The word encoders of spacy_planar.model: the character CNN (CharEmbed.v3)
and the BiLSTM encoder (BiLSTMEncoder.v1), on NumpyOps and, where cupy has a
GPU, CupyOps."""
from pathlib import Path

import numpy as np
import pytest
import spacy
from conftest import OPS, has_cupy_gpu
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


def test_parsing_embeds_each_form_once_with_the_vectors_of_every_word():
    """At inference the embedding runs over each distinct (form, NORM,
    treebank) of the batch once (``by_form``) and gives every word the
    vectors (and, through its backward, the gradients) the words run one by
    one get: a form repeated in a Doc and across Docs, a NORM set on one
    token, two treebanks, an empty Doc. With a token attribute among the
    features (SPACY) it runs over every word."""
    from thinc.layers.chain import forward as chain_forward

    from spacy_planar.io.conllu.docs import TREEBANK_KEY, TREEBANKS_KEY
    from spacy_planar.model.per_word import reads_forms_only

    vocab = spacy.blank("xx").vocab
    a = Doc(vocab, words=["guþ", "guþis", "guþ", "jah", "guþ"])
    a[4].norm_ = "guda"
    b = Doc(vocab, words=["jah", "guþis", "sunus"])
    a.user_data[TREEBANKS_KEY] = ["got_a", "got_b"]
    b.user_data[TREEBANK_KEY] = "got_b"
    embed = registry.architectures.get("spacy.MultiHashEmbed.v2")(
        width=16, attrs=["NORM", "PREFIX", "SUFFIX", "SHAPE"], rows=[500, 100, 100, 100],
        include_static_vectors=False)
    model = build_char_embed(embed, width=24, char_width=8, cnn_width=12, max_chars=6, rows=300, treebank_width=4)
    model.initialize([a, b])
    assert reads_forms_only(model)
    cnn = next(node for node in model.walk() if node.name == "char_cnn")
    seen, inner = [], cnn._func
    cnn._func = lambda m, docs, is_train: (seen.append(sum(map(len, docs))), inner(m, docs, is_train))[1]
    docs = [a, Doc(vocab, words=[]), b]
    got, backprop = model._func(model, docs, False)
    want, want_backprop = chain_forward(model, docs, False)
    assert seen == [4 + 3, 5 + 3]  # a: guþ, guþis, jah, guþ (NORM guda); b (its treebank): jah, guþis, sunus
    for x, y in zip(got, want):
        np.testing.assert_allclose(x, y, atol=1e-5)
    assert not np.allclose(got[0][1], got[2][1])  # guþis in a treebank of its own
    assert not np.allclose(got[0][0], got[0][4])  # guþ, its NORM set
    d_out = [np.arange(y.size, dtype="f").reshape(y.shape) / 10 for y in got]
    grads = []
    for run in (backprop, want_backprop):
        for node in model.walk():
            for name in node.grad_names:
                node.set_grad(name, node.ops.alloc(node.get_grad(name).shape))
        run(d_out)
        grads.append([node.get_grad(name).copy() for node in model.walk() for name in node.grad_names])
    for x, y in zip(*grads):
        np.testing.assert_allclose(x, y, atol=1e-4)
    spaced = build_char_embed(registry.architectures.get("spacy.MultiHashEmbed.v2")(
        width=16, attrs=["NORM", "SPACY"], rows=[500, 10], include_static_vectors=False), width=24, rows=300)
    c = Doc(vocab, words=["jah", "jah"], spaces=[True, False])
    spaced.initialize([c])
    assert not reads_forms_only(spaced)
    assert not np.allclose(*spaced.predict([c])[0])


def test_the_shipped_tok2vec_reads_characters_and_the_cnn_anchor_does_not():
    """base.partial.cfg's embedding, in every shipped config but spacy_parser_cnn,
    is CharEmbed.v3 around exactly the embedding spacy_parser_cnn.cfg (spaCy's
    own, as `spacy init config` writes it) has, and its static vectors are `${paths.vectors}`; its encoder the BiLSTM
    where spacy_parser_cnn has spaCy's CNN; a model built from it runs."""
    from pathlib import Path

    from thinc.api import Config

    configs = Path(__file__).resolve().parents[1] / "configs"

    def path(name):  # ours, or an anchor's
        return configs / f"{name}.cfg" if (configs / f"{name}.cfg").exists() else configs / "anchors" / f"{name}.cfg"

    def embed(name):
        return Config().from_disk(path(name), interpolate=False)["components"]["tok2vec"]["model"]["embed"]

    def encode(name):
        return Config().from_disk(path(name), interpolate=False)["components"]["tok2vec"]["model"]["encode"]

    own = embed("spacy_parser_cnn")
    assert own["@architectures"] == "spacy.MultiHashEmbed.v2"
    assert encode("spacy_parser_cnn") == {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 96, "depth": 4,
                                          "window_size": 1, "maxout_pieces": 3}  # as `spacy init config` writes it
    for name in ("arc_eager", "planar", "two_planar", "swap", "top_down", "spacy_parser", "ud", "ud_spacy_parser"):
        wrapped = embed(name)
        assert wrapped["@architectures"] == "spacy-planar.CharEmbed.v3" and wrapped["embed"] == own, name
        assert wrapped["static_vectors"] == "${paths.vectors}", name
        assert encode(name)["@architectures"] == "spacy-planar.BiLSTMEncoder.v1", name
    nlp = spacy.blank("xx")
    nlp.add_pipe("planar_parser")  # the factory's own tok2vec: base.partial.cfg's
    nlp.initialize()
    doc = nlp(Doc(nlp.vocab, words=["jah", "qaþ", "imma", "."]))
    assert sum(t.head == t for t in doc) == 1


def bilstm_tok2vec(width=32):
    """A small tok2vec: the character CNN over spaCy's hashed embeddings,
    then the BiLSTM encoder (one CNN layer, one BiLSTM layer)."""
    from spacy_planar.model.bilstm import build_bilstm_encoder

    return registry.architectures.get("spacy.Tok2Vec.v2")(
        embed=char_model(width), encode=build_bilstm_encoder(width, depth=1, cnn_depth=1, dropout=0.0))


GOTHIC = [["jah", "qaþ", "imma", "iesus", "."], ["ik", "im", "wigs", "jah", "sunja", "jah", "libains", "."],
          ["ni", "ainshun", "qimiþ", "du", "attin", "niba", "þairh", "mik", "."], ["amen", "."]]


def test_bilstm_encoder_reads_the_whole_sentence_and_each_doc_alone():
    """A word's vector depends on words beyond the CNN's window (one layer:
    one word each side) in both directions, and not on the other Docs of
    the batch; an empty Doc gets no rows; gradients reach the LSTM."""
    vocab = spacy.blank("xx").vocab
    docs = [Doc(vocab, words=w) for w in GOTHIC]
    model = bilstm_tok2vec()
    model.initialize(docs)
    together = model.predict(docs + [Doc(vocab, words=[])])
    assert [y.shape for y in together] == [(5, 32), (8, 32), (9, 32), (2, 32), (0, 32)]
    alone = model.predict([docs[2]])
    np.testing.assert_allclose(together[2], alone[0], atol=1e-5)  # no batch effect (padding)
    first_changed = model.predict([Doc(vocab, words=["ak"] + GOTHIC[2][1:])])[0]
    last_changed = model.predict([Doc(vocab, words=GOTHIC[2][:-1] + ["·"])])[0]
    assert np.abs(first_changed[-1] - alone[0][-1]).max() > 1e-4  # forward direction, 8 words on
    assert np.abs(last_changed[0] - alone[0][0]).max() > 1e-4  # backward direction
    out, backprop = model(docs, is_train=True)
    backprop([np.ones_like(y) for y in out])
    for lstm in (n for n in model.walk() if n.name == "lstm"):  # left to right, right to left
        assert all(np.abs(lstm.get_grad(p)).sum() > 0 for p in ("W", "U", "b"))


def test_bilstm_encoder_is_registered_and_builds_from_a_config():
    """The architecture as a config names it: base.partial.cfg's tok2vec with
    BiLSTMEncoder.v1 as its encode, in a pipeline with our parser."""
    from thinc.api import Config

    nlp = spacy.blank("xx")
    nlp.add_pipe("tok2vec", config={"model": Config().from_str("""
        [model]
        @architectures = "spacy.Tok2Vec.v2"
        [model.embed]
        @architectures = "spacy.MultiHashEmbed.v2"
        width = 32
        attrs = ["NORM","SHAPE"]
        rows = [500,100]
        include_static_vectors = false
        [model.encode]
        @architectures = "spacy-planar.BiLSTMEncoder.v1"
        width = 32
        depth = 2
        cnn_depth = 0
        """)["model"]})
    nlp.initialize()
    doc = nlp(Doc(nlp.vocab, words=GOTHIC[1]))
    assert doc.tensor.shape == (8, 32)


# the LSTM's C-loop limits (cells a step, forward and backward): as shipped (every step of these small
# batches in C), none (every step numpy's), and some steps each way
GATE_PATHS = [(1024, 8192), (0, 0), (6, 6)]


@pytest.mark.parametrize("cells", GATE_PATHS, ids=["c-loop", "numpy", "both"])
def test_lstm_gradients_match_finite_differences(cells, monkeypatch):
    """Our LSTM's backward pass (inputs and W, U, b) against central
    differences of sum(Y * R), on a batch of unequal lengths with an empty
    sequence, whichever runs a step's gates on the CPU."""
    from spacy_planar.model import bilstm
    from spacy_planar.model.bilstm import lstm

    monkeypatch.setattr(bilstm, "C_CELLS_FORWARD", cells[0])
    monkeypatch.setattr(bilstm, "C_CELLS_BACKWARD", cells[1])

    rng = np.random.default_rng(0)
    model = lstm(3, 2, dropout=0.0)
    model.initialize()
    model.set_param("W", rng.normal(size=(12, 2)).astype("f") * 0.5)
    model.set_param("U", rng.normal(size=(12, 3)).astype("f") * 0.5)
    Xs = [rng.normal(size=(n, 2)).astype("f") for n in (4, 1, 3, 0, 4)]
    R = [rng.normal(size=(len(X), 3)).astype("f") for X in Xs]

    def loss():
        return sum(float((Y.astype("d") * r).sum()) for Y, r in zip(model.predict(Xs), R))

    def numeric(array, index, eps=1e-2):
        array[index] += eps
        up = loss()
        array[index] -= 2 * eps
        down = loss()
        array[index] += eps
        return (up - down) / (2 * eps)

    _, backprop = model(Xs, is_train=True)
    dXs = backprop(R)
    for X, dX in zip(Xs, dXs):
        for index in np.ndindex(X.shape):
            assert abs(numeric(X, index) - dX[index]) < 1e-3
    for name in ("W", "U", "b"):
        param, grad = model.get_param(name), model.get_grad(name)
        for index in np.ndindex(param.shape):
            assert abs(numeric(param, index) - grad[index]) < 2e-3, (name, index)


@pytest.mark.parametrize("cells", GATE_PATHS, ids=["c-loop", "numpy", "both"])
def test_bilstm_encoder_gives_the_same_on_thincs_generic_ops(cells, monkeypatch):
    """Thinc's generic Ops (what CupyOps inherits: its array module's own
    operations) give NumpyOps' vectors and gradients for a batch of unequal
    lengths (and an empty sequence), whichever runs NumpyOps' gates: this
    path runs on any machine."""
    from thinc.api import Ops

    from spacy_planar.model import bilstm
    from spacy_planar.model.bilstm import build_bilstm_encoder

    monkeypatch.setattr(bilstm, "C_CELLS_FORWARD", cells[0])
    monkeypatch.setattr(bilstm, "C_CELLS_BACKWARD", cells[1])

    rng = np.random.default_rng(0)
    Xs = [rng.normal(size=(n, 8)).astype("f") for n in (5, 8, 9, 2, 1, 0)]
    encoder = build_bilstm_encoder(8, depth=2, cnn_depth=1, dropout=0.0)  # no random masks
    encoder.initialize(X=Xs)

    def run():
        Ys, backprop = encoder(Xs, is_train=True)
        return Ys, backprop([np.ones_like(Y) * (i + 1) for i, Y in enumerate(Ys)])

    want, want_dX = run()
    for node in encoder.walk():
        node.ops = Ops()
    got, got_dX = run()
    for a, b in zip(want + want_dX, got + got_dX):
        np.testing.assert_allclose(a, b, atol=1e-5)


@pytest.mark.skipif(not has_cupy_gpu, reason="no cupy with a GPU")
def test_the_tok2vec_runs_on_cupy_as_on_numpy():
    """The character CNN and the BiLSTM encoder run through Thinc's ops
    only: the same weights moved to the GPU (CupyOps) give the CPU's
    vectors, and a training step there updates every parameter."""
    import cupy
    from thinc.api import Adam

    vocab = spacy.blank("xx").vocab
    docs = [Doc(vocab, words=w) for w in GOTHIC]
    model = bilstm_tok2vec()
    model.initialize(docs)
    on_cpu = model.predict(docs)
    model.to_gpu(0)
    on_gpu = model.predict(docs)
    assert all(isinstance(y, cupy.ndarray) for y in on_gpu)
    for cpu, gpu in zip(on_cpu, on_gpu):
        np.testing.assert_allclose(cupy.asnumpy(gpu), cpu, atol=1e-4)
    before = {(n.id, p): n.get_param(p).copy() for n in model.walk() for p in n.param_names if n.has_param(p)}
    out, backprop = model(docs, is_train=True)
    backprop([y - 1 for y in out])
    model.finish_update(Adam(0.01))
    params = [(n, p) for n in model.walk() for p in n.param_names if n.has_param(p) and p != "HC0"]
    unchanged = [f"{n.name}.{p}" for n, p in params if cupy.allclose(n.get_param(p), before[(n.id, p)])]
    assert params and not unchanged, unchanged


@pytest.mark.parametrize("ops", OPS)
def test_a_pipeline_with_the_bilstm_trains_and_parses_on_these_ops(ops):
    """tok2vec (characters, BiLSTM) and planar_parser built under ``ops``:
    it learns a toy grammar (each word's head the word after it, the last
    word the root) well enough to parse sentences it has not seen, with
    one root each; its parameters live on that device."""
    from spacy.training import Example
    from thinc.api import get_current_ops, set_current_ops, use_ops

    previous = get_current_ops()
    try:
        with use_ops(ops):
            set_current_ops(get_current_ops())
            nlp = spacy.blank("xx")
            nlp.add_pipe("planar_parser", config={"model": {"tok2vec": {
                "@architectures": "spacy.Tok2Vec.v2",
                "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32, "attrs": ["NORM", "SHAPE"],
                          "rows": [500, 100], "include_static_vectors": False},
                "encode": {"@architectures": "spacy-planar.BiLSTMEncoder.v1", "width": 32, "depth": 1,
                           "cnn_depth": 1}}}})
            rng = np.random.default_rng(0)
            vocab_words = [f"w{i}" for i in range(30)]

            def sentence(n):
                words = [str(w) for w in rng.choice(vocab_words, size=n)]
                heads = list(range(1, n)) + [n - 1]
                deps = ["dep"] * (n - 1) + ["ROOT"]
                return Doc(nlp.vocab, words=words, heads=heads, deps=deps)

            gold = [sentence(int(n)) for n in rng.integers(3, 9, size=60)]
            examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in gold]
            sgd = nlp.initialize(lambda: examples)
            assert type(nlp.get_pipe("planar_parser").model.ops).__name__ == {"numpy": "NumpyOps",
                                                                              "cupy": "CupyOps"}[ops]
            for _ in range(15):
                for i in range(0, len(examples), 8):
                    nlp.update(examples[i:i + 8], sgd=sgd)
            unseen = [sentence(int(n)) for n in rng.integers(3, 9, size=20)]
            parsed = list(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in d]) for d in unseen))
    finally:
        set_current_ops(previous)
    assert all(sum(t.head == t for t in doc) == 1 for doc in parsed)
    right = sum(p.head.i == g.head.i for pd, gd in zip(parsed, unseen) for p, g in zip(pd, gd))
    assert right / sum(len(d) for d in unseen) > 0.9


def test_word_dropout_zeroes_whole_words_while_training_only():
    """CharEmbed.v3's ``word_dropout``: while training, about that share of
    words get a zero ``embed`` vector (all of its columns), the others are
    scaled; when predicting, the vectors are the embedding's own."""
    from spacy.ml.models.tok2vec import MultiHashEmbed

    embed = MultiHashEmbed(width=16, attrs=["NORM", "SHAPE"], rows=[500, 100], include_static_vectors=False)
    model = build_char_embed(embed, width=24, char_width=8, cnn_width=12, max_chars=6, rows=300, word_dropout=0.3)
    docs = [Doc(spacy.blank("xx").vocab, words=["guþ", "jah", "sa", "qaþ"] * 250)]
    model.initialize(docs)
    dropped = model.layers[0].layers[0]  # concatenate(drop_words(embed), chars)
    (Y,), _ = dropped(docs, is_train=True)
    (want,) = embed.predict(docs)
    zero = np.abs(Y).sum(axis=1) == 0
    assert 0.25 < zero.mean() < 0.35
    np.testing.assert_allclose(Y[~zero], want[~zero] / 0.7, rtol=1e-5)
    np.testing.assert_allclose(dropped.predict(docs)[0], want)


def test_an_odd_bilstm_width_is_one_clear_error():
    from spacy_planar.errors import UserError
    from spacy_planar.model.bilstm import build_bilstm_encoder

    with pytest.raises(UserError, match=r"E128\] BiLSTMEncoder.v1: width must be even .* not 95"):
        build_bilstm_encoder(95)


def test_numpy_blas_moves_every_model_on_numpy_ops_to_numpys_blas_with_the_same_outputs():
    """The shipped configs' ``after_pipeline_creation`` callback: every
    node of every component's model on blis's NumpyOps afterwards
    multiplies through numpy's BLAS; the tok2vec's vectors agree to float
    precision and the parses are the same trees."""
    from thinc.api import Config

    from spacy_planar.model.blas import make_numpy_blas

    config = Config().from_disk(Path(__file__).resolve().parents[1] / "configs" / "ud.cfg", interpolate=False)
    assert config["nlp"]["after_pipeline_creation"] == {"@callbacks": "spacy-planar.numpy_blas.v1"}
    nlp = spacy.blank("xx")
    nlp.add_pipe("tok2vec", config={"model": bilstm_tok2vec_config()})
    nlp.add_pipe("planar_parser", config={"model": {"tok2vec": {"@architectures": "spacy.Tok2VecListener.v1",
                                                                 "width": 32}}})
    docs = [Doc(nlp.vocab, words=w) for w in GOTHIC]
    nlp.initialize()
    before = [(d.tensor.copy(), [t.head.i for t in d]) for d in nlp.pipe(Doc(nlp.vocab, words=w) for w in GOTHIC)]
    nodes = [n for _, pipe in nlp.pipeline for n in pipe.model.walk()]
    assert all(n.ops.use_blis for n in nodes)
    make_numpy_blas()(nlp)
    assert not any(n.ops.use_blis for n in nodes)
    after = [(d.tensor, [t.head.i for t in d]) for d in nlp.pipe(docs)]
    for (t0, h0), (t1, h1) in zip(before, after):
        np.testing.assert_allclose(t0, t1, atol=1e-5)
        assert h0 == h1


def bilstm_tok2vec_config(width=32):
    return {"@architectures": "spacy.Tok2Vec.v2",
            "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": width, "attrs": ["NORM", "SHAPE"],
                      "rows": [500, 100], "include_static_vectors": False},
            "encode": {"@architectures": "spacy-planar.BiLSTMEncoder.v1", "width": width, "depth": 1,
                       "cnn_depth": 1}}


@pytest.mark.parametrize("reverse", [False, True], ids=["left-to-right", "right-to-left"])
@pytest.mark.parametrize("drop_connect", [0.0, 0.3])
def test_torch_lstm_gives_the_thinc_layers_outputs_and_gradients(reverse, drop_connect):
    """backend = "torch" (model/torch_lstm.py) against the Thinc-ops LSTM for the same weights
    (and the same DropConnect masks): outputs and the gradients of the inputs, W, U and b to 1e-5,
    on a batch of unequal lengths with an empty sequence."""
    pytest.importorskip("torch")
    from spacy_planar.model.bilstm import lstm

    rng = np.random.default_rng(0)
    layers = [lstm(5, 3, drop_connect, reverse=reverse, backend=backend) for backend in ("thinc", "torch")]
    for layer in layers:
        layer.initialize()
    for name in ("W", "U", "b"):
        value = rng.normal(size=layers[0].get_param(name).shape).astype("f") * 0.5
        for layer in layers:
            layer.set_param(name, value.copy())
    Xs = [rng.normal(size=(n, 3)).astype("f") for n in (6, 1, 4, 0, 6, 2)]
    dYs = [rng.normal(size=(len(X), 5)).astype("f") for X in Xs]
    outputs = []
    for layer in layers:
        np.random.seed(7)  # the same DropConnect masks (NumpyOps draws them from numpy's generator)
        Ys, backprop = layer(Xs, is_train=True)
        outputs.append((Ys, backprop(dYs), {name: layer.get_grad(name).copy() for name in ("W", "U", "b")}))
    (Y1, dX1, g1), (Y2, dX2, g2) = outputs
    for a, b in [*zip(Y1, Y2), *zip(dX1, dX2), *((g1[k], g2[k]) for k in g1)]:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert all(np.abs(g1[k]).sum() > 0 for k in g1)


def test_torch_backend_loads_the_thinc_backends_weights():
    """An encoder saved with one backend loads into the other and gives the same vectors: the
    backend is how the weights run, not what they are."""
    pytest.importorskip("torch")
    from spacy_planar.model.bilstm import build_bilstm_encoder

    rng = np.random.default_rng(1)
    Xs = [rng.normal(size=(n, 8)).astype("f") for n in (5, 8, 0, 3)]
    thinc_encoder = build_bilstm_encoder(8, depth=2, cnn_depth=1, dropout=0.0)
    thinc_encoder.initialize(X=Xs)
    torch_encoder = build_bilstm_encoder(8, depth=2, cnn_depth=1, dropout=0.0, backend="torch")
    torch_encoder.initialize(X=Xs)
    torch_encoder.from_bytes(thinc_encoder.to_bytes())
    for a, b in zip(thinc_encoder.predict(Xs), torch_encoder.predict(Xs)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_bilstm_backend_is_checked(monkeypatch):
    import sys

    from spacy_planar.errors import UserError
    from spacy_planar.model.bilstm import build_bilstm_encoder

    with pytest.raises(UserError, match="E166"):
        build_bilstm_encoder(8, backend="cuda")
    monkeypatch.setitem(sys.modules, "torch", None)  # as where PyTorch is not installed
    encoder = build_bilstm_encoder(8, depth=1, cnn_depth=0, backend="torch")
    with pytest.raises(UserError, match=r"E165.*spacy-planar\[torch\]"):
        encoder.initialize(X=[np.zeros((3, 8), dtype="f")])
