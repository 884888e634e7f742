"""`spacy-planar charlm`: a character language model of raw text, its states read by a shipped config
(trained with it, and with vectors, in test_vectors.py: one training for both flags)."""
import math
from pathlib import Path

import numpy as np
import spacy
from spacy.tokens import Doc
from thinc.api import fix_random_seed
from typer.testing import CliRunner

from spacy_planar.cli import app
from spacy_planar.model.charlm import UNKNOWN, CharLM, build_charlm_features, char_ids, char_table, train_char_lm

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_characters_map_to_ids_and_unseen_ones_to_unknown():
    table = char_table("cab")
    assert char_table("abc")[0].tolist() == [97, 98, 99]
    assert char_ids(np.array([ord("c"), ord("a"), ord("z"), ord("b")]), table).tolist() == [2, 3, UNKNOWN, 4]
    assert char_ids(np.array([ord("a")]), char_table("")).tolist() == [UNKNOWN]


def test_a_model_learns_what_it_can_predict():
    """A text where every character follows from the one before (a cycle of
    eight) is learned to well under the bits of a uniform guess (3), held out."""
    fix_random_seed(0)
    text = "abcdefg " * 64000
    lm = train_char_lm(text, hidden=16, width=8, min_count=1, learn_rate=0.01, seed=0)
    assert set(lm.chars) == set("abcdefg ")
    bits = lm.meta["bits_per_char"]
    assert bits["forward"] < 0.5 and bits["backward"] < 0.5, bits


def test_the_model_is_read_by_the_command_line_as_written(charlm_dir):
    lm = CharLM.from_disk(charlm_dir)
    assert lm.hidden == 16 and lm.forward["E"].shape == (len(lm.chars) + 2, 8)
    assert "þ" in lm.chars and lm.meta["words"] == 35024 and lm.meta["characters"] > 50000
    assert 0 < lm.meta["bits_per_char"]["forward"] < math.log2(len(lm.chars) + 2)


def features(charlm_dir, texts):
    """The unprojected features (forward state, backward state) of each text's words."""
    layer = build_charlm_features(32, str(charlm_dir))
    layer.initialize()
    layer.set_param("P", np.eye(32, dtype="f"))
    vocab = spacy.blank("xx").vocab
    return layer.predict([Doc(vocab, words=t.split()) for t in texts])


def test_a_word_reads_the_text_before_it_forward_and_after_it_backward(charlm_dir):
    """The forward half of a word's features is the state after its last
    character: the same wherever the text before it is the same; the backward
    half the state after its first character read right to left."""
    a, b, c = features(charlm_dir, ["jah qaþ imma guþ", "jah qaþ imma frauja", "sai qaþ imma guþ"])
    assert np.allclose(a[:3, :16], b[:3, :16]) and not np.allclose(a[3, :16], b[3, :16])
    assert np.allclose(a[1:, 16:], c[1:, 16:]) and not np.allclose(a[0, 16:], c[0, 16:])
    assert not np.allclose(a[:3, 16:], b[:3, 16:])  # the backward states read the last word
    (alone,) = features(charlm_dir, ["jah"])
    assert np.allclose(alone[0, :16], a[0, :16])  # the forward state after "jah" reads nothing after it


def test_without_the_flag_the_layer_is_not_built():
    from thinc.api import Config

    nlp = spacy.util.load_model_from_config(Config().from_disk(CONFIGS / "ud.cfg"), auto_fill=True)
    assert not [n for n in nlp.get_pipe("tok2vec").model.walk() if n.name == "charlm_features"]


def test_a_folder_without_a_model_is_one_line(tmp_path):
    r = runner.invoke(app, ["train", str(CONFIGS / "ud.cfg"), "--output", str(tmp_path / "out"),
                            "--paths.charlm", str(tmp_path)])
    assert r.exit_code == 1 and "E130" in r.output and str(tmp_path) in r.output, r.output
    assert not (tmp_path / "out").exists()


def test_bad_input_is_one_line(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    for args, code in (([str(tmp_path / "missing.txt")], "E031"), ([str(empty)], "E034"),
                       ([str(empty), "--hidden", "0"], "E112")):
        r = runner.invoke(app, ["charlm", str(tmp_path / "out")] + args)
        assert r.exit_code == 1 and code in r.output, r.output
        assert not (tmp_path / "out").exists()
