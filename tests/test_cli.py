import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from spacy_planar.cli import app

runner = CliRunner()


def test_module_entry_point():
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "transform-check" in res.stdout


def test_stats_json(got_train):
    res = runner.invoke(app, ["stats", str(got_train), "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["trees"] == 3387 and row["words"] == 35024 and row["ill_nested_trees"] == 13


@pytest.mark.parametrize("encoding", ["baseline", "head", "path", "head+path"])
def test_transform_check_json(got_train, encoding):
    res = runner.invoke(app, ["transform-check", str(got_train), "--encoding", encoding, "--json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    assert r["nonprojective_arcs"] == 986
    assert sum(r["lifts"].values()) >= 986 * 0.9
    if encoding == "baseline":
        assert r["restored_arcs"] == 0 and r["labels_after"] == r["labels_before"]
    else:
        assert r["restored_arcs"] > 900 and r["roundtrip_las"] > 99.5


def test_unknown_encoding(got_train):
    res = runner.invoke(app, ["transform-check", str(got_train), "--encoding", "nope"])
    assert res.exit_code == 1 and "E050" in res.output
