"""The packaged pipeline installs in a fresh venv, from its dist folder
alone, and loads by name: spacy-planar comes from the wheel beside it, not
from this clone."""
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import small_parser, treebank
from spacy_planar.cli import app

pytest.importorskip("wheel")  # the offline build (--no-build-isolation) needs it, as setuptools and cython


def dependencies_without_us(folder: Path) -> Path:
    """A folder of links to this environment's installed packages, all but
    spacy-planar (whose editable install points at this clone)."""
    folder.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = entry.name.lower()
        if name.startswith(("spacy_planar", "__editable__", "spacy-planar")) or name.endswith(".pth"):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def test_the_package_installs_in_a_fresh_venv_and_loads_by_name(tmp_path):
    small_parser(tmp_path / "model", 30, epochs=1)
    r = CliRunner().invoke(app, ["package", str(tmp_path / "model"), str(tmp_path / "packages"), "--name", "tiny_got",
                                 "--version", "1.2.3", "--license", "CC BY-NC-SA 3.0", "--source",
                                 "UD_Gothic-PROIEL=https://github.com/UniversalDependencies/UD_Gothic-PROIEL",
                                 "--test", str(treebank("got_proiel", "dev")), "--no-build-isolation"])
    assert r.exit_code == 0, r.output
    dist = tmp_path / "packages" / "dist"
    assert sorted(p.name.split("-")[0] for p in dist.glob("*.whl")) == ["spacy_planar", "xx_tiny_got"]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(f"{dependencies_without_us(tmp_path / 'deps')}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    res = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(dist),
                          "xx_tiny_got"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    code = ("import spacy, spacy_planar; nlp = spacy.load('xx_tiny_got'); doc = nlp('jah qaþ du im'); "
            "print(spacy_planar.__file__); print(nlp.meta['version'], nlp.meta['license'], "
            "sorted(nlp.meta['performance'])); print(sum(t.head.i == t.i for t in doc))")
    res = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    where, meta, roots = res.stdout.strip().splitlines()
    assert where.startswith(site) and "1.2.3 CC BY-NC-SA 3.0" in meta and "ud_test_las" in meta and roots == "1"
