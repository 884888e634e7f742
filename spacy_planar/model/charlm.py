"""A character language model from raw text, and its states as word features.

Stanza's parser and tagger read, beside each word's vector, the states of
two character-level LSTM language models trained on the language's raw text
(Qi et al. 2020, after Akbik et al. 2018): one reads the text left to
right, one right to left, each predicting the next character; a word's
features are the forward model's state at its last character and the
backward model's state at its first. So a word the treebank never showed
gets the context and the shape a large corpus gave its like.

- ``CharLM``: the two models' weights and their characters, saved and
  loaded as one file (``spacy-planar charlm`` writes it).
- ``train_direction``: one direction trained on a stream of text (chunks of
  ``SEQUENCE`` characters from a zero state, ``BATCH`` at a time, Adam; the
  LSTM is ``bilstm.lstm``, on Thinc ops).
- ``build_charlm_features``: ``CharEmbed.v2``'s ``charlm`` input: per Doc
  [words, width], the frozen states times a learned matrix. The text it reads
  is the Doc's words (NFC) each followed by one space, as the model read its
  corpus (``raw_text.Corpus``: the tokenizer's words joined by spaces).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy
import srsly
from spacy.tokens import Doc
from thinc.api import Adam, Model, fix_random_seed, glorot_uniform_init, to_numpy
from thinc.types import Floats2d

from ..errors import Errors, UserError
from ..raw_text import nfc
from .bilstm import lstm
from .per_word import cached_rows, doc_arrays

FILE = "charlm.msgpack"
START, UNKNOWN = 0, 1  # ids before the characters': a sequence's first input; a character not in the table
SEQUENCE = 150  # characters a training chunk predicts, from a zero state (as a sentence is read)
BATCH = 64
GROUP = 64  # sequences run at once when features are computed (sorted by length)
CACHE_LIMIT = 50_000  # Docs' features kept while training (it reads the same sentences every epoch)
SPACE = ord(" ")


class CharLM:
    """The two directions' LSTM weights (``{"E", "W", "U", "b"}`` each: the
    character embeddings and ``bilstm.lstm``'s parameters) and ``chars``,
    the characters in id order after ``START`` and ``UNKNOWN``."""

    def __init__(self, chars: str, forward: Dict[str, numpy.ndarray], backward: Dict[str, numpy.ndarray],
                 meta: Optional[dict] = None):
        self.chars = chars
        self.forward = forward
        self.backward = backward
        self.meta = dict(meta or {})

    @property
    def hidden(self) -> int:
        return int(self.forward["U"].shape[1])

    def to_disk(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_msgpack(path / FILE, {"chars": self.chars, "forward": self.forward, "backward": self.backward})
        srsly.write_json(path / "meta.json", self.meta)

    @classmethod
    def from_disk(cls, path: Path) -> "CharLM":
        """The model saved at ``path``; a path without one is a one-line error (E130)."""
        path = Path(path)
        data = srsly.read_msgpack(model_file(path))
        meta = srsly.read_json(path / "meta.json") if (path / "meta.json").is_file() else {}
        as_arrays = lambda d: {k: numpy.asarray(v, dtype="float32") for k, v in d.items()}  # noqa: E731
        return cls(data["chars"], as_arrays(data["forward"]), as_arrays(data["backward"]), meta)


def model_file(path: Path) -> Path:
    """The model's file in ``path``; a path without one is a one-line error (E130)."""
    if not (path / FILE).is_file():
        raise UserError(Errors.E130.format(path=path))
    return path / FILE


def char_table(chars: str) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The sorted code points of ``chars`` and their ids, for ``char_ids``."""
    codes = numpy.asarray([ord(c) for c in chars], dtype=numpy.int64)
    order = numpy.argsort(codes)
    return codes[order], order.astype(numpy.int64) + 2


def char_ids(codes: numpy.ndarray, table: Tuple[numpy.ndarray, numpy.ndarray]) -> numpy.ndarray:
    """The ids of code points ``codes`` (``UNKNOWN`` for one not in ``table``)."""
    sorted_codes, ids = table
    if not len(sorted_codes):
        return numpy.full(len(codes), UNKNOWN, dtype=numpy.int64)
    at = numpy.minimum(numpy.searchsorted(sorted_codes, codes), len(sorted_codes) - 1)
    return numpy.where(sorted_codes[at] == codes, ids[at], UNKNOWN)


def text_codes(text: str) -> numpy.ndarray:
    return numpy.frombuffer(text.encode("utf-32-le"), dtype=numpy.uint32).astype(numpy.int64)


def chars_of(text: str, min_count: int) -> str:
    """The characters seen at least ``min_count`` times in ``text``, in code point order."""
    counts = numpy.bincount(text_codes(text))
    return "".join(chr(c) for c in numpy.flatnonzero(counts >= max(min_count, 1)))


def language_model(hidden: int, width: int, n_ids: int) -> Model:
    """One direction while it trains: embeddings ``E`` [ids, width], the
    LSTM, and the softmax's ``O`` [ids, hidden] and ``c``."""
    rnn = lstm(hidden, width, 0.0)
    model = Model("char_lm", lambda model, X, is_train: (X, lambda d: d), layers=[rnn],
                  params={"E": None, "O": None, "c": None})
    rnn.initialize()
    model.set_param("E", glorot_uniform_init(model.ops, (n_ids, width)))
    model.set_param("O", model.ops.alloc2f(n_ids, hidden))
    model.set_param("c", model.ops.alloc1f(n_ids))
    return model


def lm_loss(model: Model, ids: numpy.ndarray, is_train: bool) -> float:
    """The summed negative log-likelihood (nats) of each row of ``ids``
    [B, SEQUENCE] predicted from ``START`` and the row before it; the
    gradients incremented when ``is_train``."""
    ops, xp = model.ops, model.ops.xp
    E, O, c = (model.get_param(n) for n in ("E", "O", "c"))
    inputs = ops.asarray2i(numpy.concatenate([numpy.full((len(ids), 1), START), ids[:, :-1]], axis=1))
    Ys, backprop = model.layers[0]([E[row] for row in inputs], is_train)
    states = ops.flatten(Ys)
    probs = ops.softmax(ops.gemm(states, O, trans2=True) + c)
    gold, rows = ops.asarray1i(ids.reshape(-1)), xp.arange(ids.size)
    loss = -float(xp.log(probs[rows, gold] + 1e-9).sum())
    if is_train:
        d = probs
        d[rows, gold] -= 1
        d /= ids.size
        model.inc_grad("O", ops.gemm(d, states, trans1=True))
        model.inc_grad("c", d.sum(axis=0))
        d_inputs = backprop(ops.unflatten(ops.gemm(d, O), [ids.shape[1]] * len(ids)))
        dE = ops.alloc2f(*E.shape)
        ops.scatter_add(dE, inputs.reshape(-1), ops.flatten(d_inputs))
        model.inc_grad("E", dE)
    return loss


def train_direction(stream: numpy.ndarray, held_out: numpy.ndarray, n_ids: int, hidden: int, width: int,
                    learn_rate: float, seed: int) -> Tuple[Dict[str, numpy.ndarray], float]:
    """One direction trained once over ``stream`` (character ids), chunk
    by chunk in a shuffled order; returns its weights and its bits per
    character on ``held_out``."""
    fix_random_seed(seed)
    model = language_model(hidden, width, n_ids)
    optimizer = Adam(learn_rate, grad_clip=1.0)
    chunks = stream[:len(stream) // SEQUENCE * SEQUENCE].reshape((-1, SEQUENCE))
    order = numpy.random.RandomState(seed).permutation(len(chunks))
    for start in range(0, len(order), BATCH):
        lm_loss(model, chunks[order[start:start + BATCH]], is_train=True)
        model.finish_update(optimizer)
    test = held_out[:len(held_out) // SEQUENCE * SEQUENCE].reshape((-1, SEQUENCE))
    nats = sum(lm_loss(model, test[i:i + BATCH], is_train=False) for i in range(0, len(test), BATCH))
    bits = nats / max(test.size, 1) / numpy.log(2)
    rnn = model.layers[0]
    weights = {"E": model.get_param("E")} | {n: rnn.get_param(n) for n in ("W", "U", "b")}
    return {k: numpy.asarray(to_numpy(v), dtype="float32") for k, v in weights.items()}, float(bits)


def train_char_lm(text: str, hidden: int, width: int, min_count: int, learn_rate: float, seed: int,
                  held_out_share: float = 0.01, pool=None) -> CharLM:
    """Both directions on ``text`` (its last ``held_out_share`` kept for
    bits per character), side by side in ``pool`` (an executor) if given."""
    chars = chars_of(text, min_count)
    ids = char_ids(text_codes(text), char_table(chars))
    cut = len(ids) - max(int(len(ids) * held_out_share), SEQUENCE)
    jobs = [(ids[:cut], ids[cut:]), (ids[:cut][::-1].copy(), ids[cut:][::-1].copy())]
    args = (len(chars) + 2, hidden, width, learn_rate, seed)
    began = time.time()
    if pool is not None:
        futures = [pool.submit(train_direction, s, h, *args) for s, h in jobs]
        (fw, fw_bits), (bw, bw_bits) = (f.result() for f in futures)
    else:
        (fw, fw_bits), (bw, bw_bits) = (train_direction(s, h, *args) for s, h in jobs)
    meta = {"characters": int(cut), "held_out_characters": int(len(ids) - cut), "hidden": hidden, "width": width,
            "min_count": min_count, "learn_rate": learn_rate, "seed": seed, "chars": len(chars),
            "bits_per_char": {"forward": round(fw_bits, 4), "backward": round(bw_bits, 4)},
            "seconds": round(time.time() - began, 1)}
    return CharLM(chars, fw, bw, meta)


def run_direction(rnn: Model, E, sequences: List[numpy.ndarray], positions: List[numpy.ndarray]) -> List:
    """The states of ``rnn`` (inputs ``E[ids]``) at ``positions`` of each
    of ``sequences``, the sequences run ``GROUP`` at a time by length."""
    ops = rnn.ops
    out: List = [None] * len(sequences)
    order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
    for start in range(0, len(order), GROUP):
        group = order[start:start + GROUP]
        Ys, _ = rnn([E[ops.asarray1i(sequences[i])] for i in group], False)
        for i, Y in zip(group, Ys):
            out[i] = Y[ops.asarray1i(positions[i])]
    return out


def doc_sequences(docs: List[Doc], chars: str, codes_cache: Dict[int, numpy.ndarray]):
    """Each Doc's text as ids for the two directions (``START``, then each
    word and a space; the backward one reversed) and the positions of the
    states wanted: after each word's last character, and (read right to
    left) after its first. The code points of each word form (NFC) are
    worked out once, in ``codes_cache``."""
    table = char_table(chars)
    strings = docs[0].vocab.strings
    keys = doc_arrays(docs, ["ORTH"])[:, 0]
    rows, present = cached_rows(keys, codes_cache, lambda key: text_codes(nfc(strings[key]) or " "))
    present = numpy.concatenate([present, numpy.ones((len(rows), 1), dtype=bool)], axis=1)
    rows = numpy.concatenate([rows, numpy.full((len(rows), 1), SPACE, dtype=rows.dtype)], axis=1)
    lengths = present.sum(axis=1)  # each word's characters and its space
    fw, bw, fw_at, bw_at = [], [], [], []
    start = 0
    for doc in docs:
        n = len(doc)
        ids = char_ids(rows[start:start + n][present[start:start + n]].astype(numpy.int64), table)
        ends = numpy.cumsum(lengths[start:start + n])
        fw.append(numpy.concatenate([[START], ids]))
        fw_at.append(ends - 1)  # after the word's last character (input 0 is START)
        bw.append(numpy.concatenate([[START], ids[::-1]]))
        bw_at.append(len(ids) - (ends - lengths[start:start + n]))  # after the word's first
        start += n
    return fw, bw, fw_at, bw_at


def build_charlm_features(width: int, source: str) -> Model[List[Doc], List[Floats2d]]:
    """Docs -> per Doc [words, ``width``]: each word's two states (the
    forward model's after its last character, the backward model's after its
    first) times a learned [width, 2 hidden] matrix. The model is read from
    ``source`` (``spacy-planar charlm``'s directory) when the layer is
    initialized and saved with the pipeline; its weights get no gradient."""
    codes_cache: Dict[int, numpy.ndarray] = {}
    features: Dict[bytes, object] = {}

    def doc_features(model: Model, docs: List[Doc], is_train: bool) -> List:
        """Each Doc's features; while training, kept by the Doc's words
        (training reads the same sentences every epoch; parsing, each once)."""
        keys = [doc.to_array(["ORTH"]).tobytes() for doc in docs]
        found = {i: features[key] for i, key in enumerate(keys) if key in features}
        todo = [i for i in range(len(docs)) if i not in found]
        if todo:
            fw, bw, fw_at, bw_at = doc_sequences([docs[i] for i in todo], model.attrs["chars"], codes_cache)
            forward = run_direction(model.layers[0], model.get_param("Ef"), fw, fw_at)
            backward = run_direction(model.layers[1], model.get_param("Eb"), bw, bw_at)
            found.update((i, model.ops.xp.concatenate([f, b], axis=1)) for i, f, b in zip(todo, forward, backward))
            if is_train:
                if len(features) + len(todo) > CACHE_LIMIT:
                    features.clear()
                features.update((keys[i], found[i]) for i in todo)
        return [found[i] for i in range(len(docs))]

    def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
        ops = model.ops
        lengths = [len(doc) for doc in docs]
        if sum(lengths) == 0:
            return [ops.alloc2f(0, width) for _ in docs], lambda d: []
        F = ops.flatten([f for f, n in zip(doc_features(model, docs, is_train), lengths) if n])
        P = model.get_param("P")

        def backprop(dYs: List[Floats2d]) -> List:
            model.inc_grad("P", ops.gemm(ops.flatten(dYs), F, trans1=True))
            return []

        return ops.unflatten(ops.gemm(F, P, trans2=True), lengths), backprop

    def init(model: Model, X=None, Y=None) -> Model:
        lm = CharLM.from_disk(Path(source))
        features.clear()
        codes_cache.clear()
        model.attrs["chars"] = lm.chars
        for rnn, direction, name in ((model.layers[0], lm.forward, "Ef"), (model.layers[1], lm.backward, "Eb")):
            rnn.set_dim("nO", lm.hidden, force=True)
            rnn.set_dim("nI", direction["E"].shape[1], force=True)
            for param in ("W", "U", "b"):
                rnn.set_param(param, model.ops.asarray(direction[param]))
            model.set_param(name, model.ops.asarray2f(direction["E"]))
        model.set_param("P", glorot_uniform_init(model.ops, (width, 2 * lm.hidden)))
        return model

    return Model("charlm_features", forward, init=init, layers=[lstm(None, None, 0.0), lstm(None, None, 0.0)],
                 params={"Ef": None, "Eb": None, "P": None}, dims={"nO": width}, attrs={"chars": ""})

