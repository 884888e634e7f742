"""The packaged pipeline installs in a fresh venv, from its dist folder
alone, and loads by name: spacy-planar comes from the wheel beside it, not
from this clone."""
import contextlib
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import fixture_path, sample, small_parser
from typer.testing import CliRunner

from spacy_planar.__main__ import app

pytest.importorskip("wheel")  # the offline build (--no-build-isolation) needs it, as setuptools and cython


# what spacy-planar needs besides spaCy: the package's dist/ must bring them
OWN_DEPENDENCIES = ("conllu", "threadpoolctl", "udtools", "udapi", "regex", "termcolor", "colorama")


def spacy_alone(folder: Path) -> Path:
    """A folder of links to this environment's installed packages, all but
    spacy-planar (whose editable install points at this clone) and what it
    needs besides spaCy (OWN_DEPENDENCIES)."""
    folder.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = entry.name.lower()
        if name.startswith(("spacy_planar", "__editable__", "spacy-planar",
                            *OWN_DEPENDENCIES)) or name.endswith(".pth"):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


@pytest.mark.slow  # half a minute of wheels and a fresh venv: .ci/run runs it (-m slow)
def test_packages_of_two_languages_install_in_a_fresh_venv_and_load_by_name(tmp_path):
    """A Latin pipeline named with its language (la_tiny stays la_tiny) and
    a Greek one named without (tiny becomes grc_tiny), packaged as the README
    says, install with --no-index where only spaCy is, and load by name."""
    packages = tmp_path / "packages"
    test = sample(fixture_path("dev"), tmp_path / "test.conllu", 60)  # the meta's scores: any test file
    for lang, name in (("la", "la_tiny"), ("grc", "tiny")):
        small_parser(tmp_path / lang, 30, epochs=1, lang=lang)
        # the second takes the first's spacy-planar wheel and dependencies (--planar-wheel, --no-dependencies)
        built = sorted((packages / "dist").glob("spacy_planar-*.whl")) if lang == "grc" else []
        again = ["--planar-wheel", str(built[0]), "--no-dependencies"] if built else []
        r = CliRunner().invoke(app, ["package", str(tmp_path / lang), str(packages), "--name", name,
                                     "--version", "1.2.3", "--license", "CC BY-NC-SA 3.0", "--source",
                                     "UD_Gothic-PROIEL=https://github.com/UniversalDependencies/UD_Gothic-PROIEL",
                                     "--test", str(test), "--no-build-isolation", *again])
        assert r.exit_code == 0, r.output
        assert bool(built) == (lang == "grc")
    dist = packages / "dist"
    names = {p.name.split("-")[0].lower() for p in dist.glob("*.whl")}
    assert {"spacy_planar", "la_tiny", "grc_tiny", "conllu", "threadpoolctl", "udtools"} <= names
    assert sorted(p.name for p in packages.iterdir()) == ["dist", "grc_tiny-1.2.3", "la_tiny-1.2.3"]

    # the index package wrote beside them: each pipeline's name, version, licence, scores, size and sha256
    import hashlib
    import json

    index = json.loads((dist / "index.json").read_text(encoding="utf-8"))
    assert [(e["name"], e["version"], e["license"]) for e in index] == [
        ("grc_tiny", "1.2.3", "CC BY-NC-SA 3.0"), ("la_tiny", "1.2.3", "CC BY-NC-SA 3.0")]
    for e in index:
        wheel = dist / e["url"]
        assert e["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest() and e["size"] == wheel.stat().st_size
        assert e["treebanks"] == ["UD_Gothic-PROIEL"] and 0 <= e["scores"]["LAS"] <= 1

    venv = tmp_path / "venv"
    # a venv with no spaCy of its own (this environment's, by a .pth): spacy-planar from dist, then
    # `spacy-planar download` of each pipeline: la_tiny from the index served on localhost, grc_tiny
    # from the index as a file; pip too comes from this environment (a venv without its own: 7 s less)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(f"{spacy_alone(tmp_path / 'deps')}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_FIND_LINKS")}
    env["PIP_NO_INDEX"] = "1"  # nothing from the network: what the pipelines need is here
    res = subprocess.run([str(python), "-m", "pip", "install", "-q", "--find-links", str(dist), "spacy-planar"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    # a plain install has no laboratory: `spacy-planar lab` says how to get it, in one line
    res = subprocess.run([str(python), "-m", "spacy_planar", "lab", "stats", "x.conllu"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert res.returncode == 1 and "E161" in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    with served(dist) as url:
        res = subprocess.run([str(python), "-m", "spacy_planar", "download", "la_tiny", "--index", f"{url}/index.json"],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert res.returncode == 0 and 'spacy.load("la_tiny")' in res.stdout, res.stdout[-2000:] + res.stderr[-2000:]
    res = subprocess.run([str(python), "-m", "spacy_planar", "download", "grc_tiny", "--index",
                          str(dist / "index.json")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    code = ("import spacy, spacy_planar, conllu; print(spacy_planar.__file__, conllu.__file__)\n"
            "for name in ('la_tiny', 'grc_tiny'):\n"
            "    nlp = spacy.load(name); doc = nlp('jah qaþ du im')\n"
            "    print(nlp.lang, nlp.meta['version'], nlp.meta['license'], sorted(nlp.meta['performance']), "
            "sum(t.head.i == t.i for t in doc))")
    res = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    where, latin, greek = res.stdout.strip().splitlines()
    assert all(path.startswith(site) for path in where.split())
    for lang, line in (("la", latin), ("grc", greek)):
        assert line.startswith(f"{lang} 1.2.3 CC BY-NC-SA 3.0") and "ud_test_las" in line and line.endswith(" 1")


@contextlib.contextmanager
def served(folder: Path):
    """``folder`` served over HTTP on localhost for the block: its URL."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # the requests and their errors (a 404) are the test's, not its output
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_download_refuses_an_unknown_name_a_bad_checksum_and_no_network_in_one_line(tmp_path):
    """Nothing installed in any of these: an unknown name names the nearest
    (E146), a wheel whose sha256 is not the index's is refused (E147), an
    index that cannot be reached says so (E148), a file that is no index
    (E149); --list shows the index."""
    import json

    wheel = tmp_path / "la_tiny-1.0.0-py3-none-any.whl"
    wheel.write_bytes(b"not the wheel the index names")
    index = tmp_path / "index.json"
    index.write_text(json.dumps([{"name": "la_tiny", "version": "1.0.0", "lang": "la", "treebanks": ["UD_Latin-X"],
                                  "license": "CC BY-SA 4.0", "scores": {"LAS": 0.5}, "size": 30, "sha256": "0" * 64,
                                  "url": wheel.name}]), encoding="utf-8")
    cases = [(["la_tin"], "E146", "la_tiny"), (["la_tiny"], "E147", "sha256"),
             (["la_tiny", "--index", "http://127.0.0.1:9/index.json"], "E148", "cannot be reached")]
    for args, code, says in cases:
        if "--index" not in args:
            args = [*args, "--index", str(index)]
        r = CliRunner().invoke(app, ["download", *args])
        assert r.exit_code == 1 and code in r.output and says in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1
    assert wheel.exists()  # the index's own file: only the fetched copy is removed
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    r = CliRunner().invoke(app, ["download", "la_tiny", "--index", str(tmp_path / "bad.json")])
    assert r.exit_code == 1 and "E149" in r.output
    r = CliRunner().invoke(app, ["download", "--list", "--index", str(index)])
    assert r.exit_code == 0 and "la_tiny" in r.output and "50.00" in r.output and "UD_Latin-X" in r.output


def test_download_where_nothing_is_released_says_so_and_names_the_build(tmp_path):
    """A release URL that answers 404, an index that does not list the name and an index
    that was never built (packages/dist/index.json before the zoo) each say that nothing is
    released there and name the build command, in one line, exit 1."""
    import json

    index = tmp_path / "index.json"
    index.write_text(json.dumps([{"name": "got_tiny", "version": "1.0.0", "sha256": "0" * 64, "url": "x.whl"}]),
                     encoding="utf-8")
    with served(tmp_path / "empty") as url:
        (tmp_path / "empty").mkdir()
        cases = [(["la_udante_planar", "--index", f"{url}/releases/latest/index.json"], "E157"),
                 (["--list", "--index", f"{url}/index.json"], "E157"),
                 (["la_udante_planar", "--index", str(index)], "E146"),
                 (["la_udante_planar", "--index", str(tmp_path / "packages" / "dist" / "index.json")], "E157")]
        for args, code in cases:
            r = CliRunner().invoke(app, ["download", *args])
            assert r.exit_code == 1 and code in r.output and len(r.output.strip().splitlines()) == 1, r.output
            assert "not released" in r.output or "nothing is released" in r.output
            assert "spacy project run zoo ." in r.output and "spacy project run zoo-la ." in r.output


def test_download_offline_says_nothing_is_released_yet_and_how_to_build(monkeypatch):
    """Offline, the default index (the project's release page) cannot be reached: one line that
    says so, that nothing has been released there as of this version, and the build command."""
    import urllib.error

    from spacy_planar import __version__
    from spacy_planar.io import zoo

    def offline(url, timeout=None):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(zoo.urllib.request, "urlopen", offline)
    for args in (["--list"], ["la_udante_planar"]):
        r = CliRunner().invoke(app, ["download", *args])
        assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
        said = " ".join(r.output.split())
        assert "E162" in said and "cannot be reached" in said and "name resolution" in said
        assert f"Nothing has been released there so far (as of spacy-planar {__version__})" in said
        assert "spacy project run zoo ." in said
    r = CliRunner().invoke(app, ["download", "--list", "--index", "http://127.0.0.1:9/index.json"])
    assert "E148" in r.output and "released" not in r.output  # another index: nothing known of its releases


def test_a_model_that_is_not_a_pipeline_is_one_line(tmp_path):
    r = CliRunner().invoke(app, ["package", str(tmp_path), str(tmp_path / "packages"), "--name", "x"])
    assert r.exit_code == 1 and "E107" in r.output and not (tmp_path / "packages").exists()


@pytest.mark.parametrize("option,value", [("--name", "bad name!"), ("--name", "9lives"), ("--version", "one")])
def test_a_name_or_version_pip_would_refuse_is_one_line_and_nothing_written(tmp_path, option, value):
    model = small_parser(tmp_path / "model", 10, epochs=1)
    args = {"--name": "ok", "--version": "0.1.0", option: value}
    r = CliRunner().invoke(app, ["package", str(model), str(tmp_path / "packages"), *[x for kv in args.items()
                                                                                        for x in kv]])
    assert r.exit_code == 1 and "E134" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "packages").exists()
