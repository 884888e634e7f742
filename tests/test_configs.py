"""Every config trains with `spacy train` unchanged; every registered name resolves."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.util import registry

from conftest import treebank
from spacy_planar.conllu_io import conllu_to_docs

CONFIGS = sorted(Path(__file__).resolve().parents[1].joinpath("configs").glob("*.cfg"))


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "small.spacy"
    vocab = spacy.blank("xx").vocab
    docs = list(conllu_to_docs(treebank("got_proiel"), vocab))[:60]
    DocBin(store_user_data=True, docs=docs).to_disk(path)
    return path


def test_five_configs():
    assert [c.stem for c in CONFIGS] == ["arc_eager", "planar", "spacy_parser", "swap", "two_planar"]


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_spacy_train_runs(config, small_corpus, tmp_path):
    cmd = [sys.executable, "-m", "spacy", "train", str(config), "--output", str(tmp_path / "out"),
           "--paths.train", str(small_corpus), "--paths.dev", str(small_corpus),
           "--training.max_steps", "6", "--training.eval_frequency", "3"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    doc = nlp(spacy.tokens.Doc(nlp.vocab, words=["jah", "qaþ", "imma", "."]))
    assert all(0 <= t.head.i < len(doc) for t in doc)


def test_every_entry_point_resolves():
    from importlib.metadata import entry_points

    groups = {"spacy_factories": registry.factories, "spacy_architectures": registry.architectures,
              "spacy_scorers": registry.scorers, "spacy_transition_systems": None}
    found = 0
    for group, reg in groups.items():
        for ep in entry_points(group=group):
            if not ep.value.startswith("spacy_planar."):
                continue
            func = ep.load()
            found += 1
            if reg is not None:
                assert reg.get(ep.name) is not None
            else:
                assert registry.transition_systems.get(ep.name) is func
                assert func().make(["obj"], "root").table.names()
    assert found == 7
