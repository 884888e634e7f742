"""configs/ud_trf.cfg: a pretrained transformer (spacy-transformers) as the shared
encoder, the taggers and our parser listening. No weights can be fetched here:
a tiny BERT of two layers is built from a config and saved to a folder, which
`--paths.transformer` names. Skipped where torch or spacy-transformers is absent
(`pip install 'spacy-planar[trf]'`)."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from conftest import first_docs, fixture_path
from spacy.tokens import Doc, DocBin

pytest.importorskip("torch")
pytest.importorskip("spacy_transformers")

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "ud_trf.cfg"


def tiny_transformer(path: Path, words) -> Path:
    """A two-layer BERT (width 32) with a WordPiece vocabulary of the
    characters of ``words`` (each also as a continuation piece), random
    weights, saved as a Hugging Face model folder."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    chars = sorted({c for w in words for c in w})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars + [f"##{c}" for c in chars]
    path.mkdir(parents=True)
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=False,
                      tokenize_chinese_chars=False).save_pretrained(path)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=256)
    BertModel(config).save_pretrained(path)
    return path


def test_the_transformer_config_trains_and_parses(tmp_path):
    """`spacy-planar train configs/ud_trf.cfg --paths.transformer DIR` trains
    the transformer, the taggers and the parser together; the pipeline parses
    Docs with one root each, and tags them, and comes back from disk."""

    docs = first_docs(fixture_path(), spacy.blank("xx").vocab, 40)
    corpus = tmp_path / "small.spacy"
    DocBin(store_user_data=True, docs=docs).to_disk(corpus)
    model = tiny_transformer(tmp_path / "tiny", [t.text for d in docs for t in d])
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "spacy_planar", "train", str(CONFIG), "--output", str(out),
           "--paths.train", str(corpus), "--paths.dev", str(corpus), "--paths.transformer", str(model),
           "--training.max_steps", "6", "--training.eval_frequency", "3"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    nlp = spacy.load(out / "model-last")
    assert nlp.pipe_names == ["transformer", "morphologizer", "tagger", "planar_parser"]
    parsed = list(nlp.pipe(Doc(nlp.vocab, words=[t.text for t in d]) for d in docs[:10]))
    for doc in parsed:
        assert sum(t.head == t for t in doc) == 1
        assert doc.has_annotation("POS") and doc.has_annotation("TAG")
    again = spacy.load(out / "model-last")
    reparsed = list(again.pipe(Doc(again.vocab, words=[t.text for t in d]) for d in docs[:10]))
    assert [[t.head.i for t in d] for d in parsed] == [[t.head.i for t in d] for d in reparsed]
