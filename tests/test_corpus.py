"""parse-corpus: a folder in, a folder of CoNLL-U out, byte for byte what
``parse`` writes file by file, however it runs (here, a process pool, a Dask
LocalCluster, a Dask scheduler and workers started as processes); resumed
after an interruption; a lost worker costs nothing but time. Each test starts
and stops its own scheduler and workers on localhost."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import fixture_path, small_parser
from typer.testing import CliRunner

from spacy_planar.__main__ import app
from spacy_planar.io.conllu import read_conllu

distributed = pytest.importorskip("distributed")


def blocks(split: str, first: int, n: int):
    every = fixture_path(split).read_text(encoding="utf-8").strip().split("\n\n")
    return [every[(first + k) % len(every)] for k in range(n)]  # round again where the split ends


def write_corpus(folder: Path, n_files: int, sents_per_file: int = 5) -> Path:
    """Half CoNLL-U, half raw text (one sentence per line), in nested
    folders, and one CoNLL-U file named .txt (read by its content)."""
    for i in range(n_files):
        part = blocks("dev", i * sents_per_file, sents_per_file)
        sub = folder / ("" if i % 3 == 0 else "a" if i % 3 == 1 else "a/b")
        sub.mkdir(parents=True, exist_ok=True)
        if i % 2 == 0:
            (sub / f"f{i:03}.conllu").write_text("\n\n".join(part) + "\n\n", encoding="utf-8")
        else:
            texts = [re.search(r"# text = (.*)", b).group(1) for b in part]
            (sub / f"f{i:03}.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    (folder / "a" / "conllu_named.txt").write_text("\n\n".join(blocks("test", 0, 3)) + "\n\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A pipeline of the factory's parser, a few updates on 40 sentences:
    these tests are about files, not accuracy."""
    return small_parser(tmp_path_factory.mktemp("model") / "parser", 40, epochs=3)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus") / "in", 12)


@pytest.fixture(scope="module")
def reference(model, corpus, tmp_path_factory):
    """``parse``'s output, file by file."""
    out = tmp_path_factory.mktemp("reference")
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        target = out / path.relative_to(corpus).with_suffix(".conllu")
        target.parent.mkdir(parents=True, exist_ok=True)
        r = CliRunner().invoke(app, ["parse", str(model), str(path), str(target)])
        assert r.exit_code == 0, r.output
    return out


def files(folder: Path):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def parse_corpus(*args):
    return CliRunner().invoke(app, ["parse-corpus", *map(str, args)])


def said(result) -> str:
    """What a command printed, its lines as wasabi wrapped them joined again."""
    return " ".join(result.output.split())


@pytest.mark.parametrize("how", [[], ["--n-process", "2"], ["--local-workers", "2"]])
def test_outputs_are_what_parse_writes_file_by_file(model, corpus, reference, tmp_path, how):
    r = parse_corpus(model, corpus, tmp_path / "out", *how)
    assert r.exit_code == 0, r.output
    assert "Parsed 13 files" in said(r)
    out = files(tmp_path / "out")
    assert out == files(reference) and len(out) == 13
    # a .txt that holds CoNLL-U keeps its lines (its words, its sent_ids)
    assert [s.forms for s in read_conllu(tmp_path / "out" / "a" / "conllu_named.conllu")] == \
        [s.forms for s in read_conllu(fixture_path("test"))][:3]


def test_a_second_run_parses_only_what_is_missing(model, corpus, reference, tmp_path):
    """An interrupted run (here: bad input in the middle, one line and exit
    1) leaves complete outputs only; the next run keeps them and parses the
    rest; an output cut short, or older than its input, is redone."""
    src = tmp_path / "in"
    src.mkdir()
    for rel, data in files(corpus).items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(data)
    bad = src / "a" / "f007.txt"
    bad.write_bytes(b"caput \xff\xfe mortuum\n")
    r = parse_corpus(model, src, tmp_path / "out")
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
    assert f"{bad}:1: [E019]" in r.output
    done = files(tmp_path / "out")
    assert 0 < len(done) < 13 and all(data == files(reference)[rel] for rel, data in done.items())
    assert not list((tmp_path / "out").rglob(".*.tmp"))
    bad.write_bytes((corpus / "a" / "f007.txt").read_bytes())
    r = parse_corpus(model, src, tmp_path / "out")
    assert r.exit_code == 0, r.output
    assert f"Parsed {13 - len(done)} files" in said(r) and f"{len(done)} complete outputs kept" in said(r)
    assert files(tmp_path / "out") == files(reference)
    cut = tmp_path / "out" / "f000.conllu"
    cut.write_bytes(cut.read_bytes()[:200])
    os.utime(src / "a" / "b" / "f002.conllu")  # an input edited after its output was written
    (tmp_path / "out" / "a" / ".f001.conllu.x1y2.tmp").write_text("left by a killed worker")
    r = parse_corpus(model, src, tmp_path / "out")
    assert r.exit_code == 0 and "Parsed 2 files" in said(r) and "11 complete outputs kept" in said(r), r.output
    assert files(tmp_path / "out") == files(reference)


@pytest.mark.parametrize("args,code", [
    (["{missing}", "{out}"], "E031"),
    (["{file}", "{out}"], "E100"),
    (["{corpus}", "{corpus}/a/out"], "E102"),
    (["{empty}", "{out}"], "E105"),
    (["{clash}", "{out}"], "E101"),
    (["{corpus}", "{out}", "--n-process", "2", "--local-workers", "2"], "E103"),
    (["{corpus}", "{out}", "--n-process", "0"], "E104"),
])
def test_bad_folders_and_options_get_one_line(model, corpus, tmp_path, args, code):
    (tmp_path / "empty").mkdir()
    (tmp_path / "clash").mkdir()
    (tmp_path / "clash" / "x.txt").write_text("a b\n")
    (tmp_path / "clash" / "x.conllu").write_text("\n\n".join(blocks("dev", 0, 1)) + "\n\n")
    names = {"missing": tmp_path / "nothing", "out": tmp_path / "out", "file": corpus / "f000.conllu",
             "corpus": corpus, "empty": tmp_path / "empty", "clash": tmp_path / "clash"}
    r = parse_corpus(model, *[a.format(**names) for a in args])
    assert r.exit_code == 1 and f"[{code}]" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert "Traceback" not in r.output and not (tmp_path / "out").exists()


class DaskProcesses:
    """``dask scheduler`` and ``dask worker`` as processes on localhost,
    stopped when the test ends."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.procs = {}
        self.start("scheduler", ["scheduler", "--scheduler-file", self.file, "--host", "127.0.0.1", "--port", "0",
                                 "--no-dashboard"])
        deadline = time.time() + 60
        while not self.file.exists():
            assert time.time() < deadline and self.procs["scheduler"].poll() is None, "no scheduler"
            time.sleep(0.2)
        self.address = json.loads(self.file.read_text())["address"]

    def start(self, name, args):
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        log = open(self.folder / f"{name}.log", "w")
        self.procs[name] = subprocess.Popen([sys.executable, "-m", "dask", *map(str, args)], cwd=self.folder, env=env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def worker(self, name):
        self.start(name, ["worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name])

    def wait_for_workers(self, n):
        with distributed.Client(self.address, timeout=60) as client:
            client.wait_for_workers(n, timeout=120)

    def kill(self, name):
        os.killpg(self.procs[name].pid, signal.SIGKILL)
        self.procs[name].wait()

    def stop(self):
        """The workers first, each saying goodbye to the scheduler that is
        still there (a worker whose scheduler went first waits for it), then
        the scheduler."""
        for proc in reversed(list(self.procs.values())):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture
def dask_processes(tmp_path):
    procs = DaskProcesses(tmp_path)
    try:
        yield procs
    finally:
        procs.stop()


def test_a_scheduler_and_two_workers(model, corpus, reference, tmp_path, dask_processes):
    dask_processes.worker("w1")
    dask_processes.worker("w2")
    dask_processes.wait_for_workers(2)
    r = parse_corpus(model, corpus, tmp_path / "out", "--scheduler", dask_processes.address)
    assert r.exit_code == 0, r.output
    assert files(tmp_path / "out") == files(reference)
    with distributed.Client(dask_processes.address) as client:  # each worker loaded the pipeline once, for 13 files
        loads = client.run(lambda: __import__("spacy_planar.corpus.pool", fromlist=["LOADS"]).LOADS)
    assert list(loads.values()) == [{str(model.resolve()): 1}] * 2


def test_a_worker_killed_mid_run_costs_only_its_files(model, tmp_path, dask_processes):
    """Kill one of two workers once the first outputs are there: the other
    parses what the lost one held, every output is complete and as a run on
    one process writes it."""
    src = write_corpus(tmp_path / "in", 60, sents_per_file=6)
    r = parse_corpus(model, src, tmp_path / "expected")
    assert r.exit_code == 0, r.output
    dask_processes.worker("w1")
    dask_processes.worker("w2")
    dask_processes.wait_for_workers(2)
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-m", "spacy_planar", "parse-corpus", str(model), str(src), str(out),
                            "--scheduler", dask_processes.address], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    deadline = time.time() + 120
    while len(list(out.rglob("*.conllu"))) < 3:
        assert time.time() < deadline and run.poll() is None, run.stdout.read() if run.poll() is not None else "slow"
        time.sleep(0.05)
    assert len(list(out.rglob("*.conllu"))) < 61
    dask_processes.kill("w1")
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0, output
    assert files(out) == files(tmp_path / "expected")


@pytest.mark.parametrize("how", [[], ["--n-process", "2"]])
def test_skip_invalid_writes_every_good_output_and_names_the_bad(model, corpus, reference, tmp_path, how):
    src = tmp_path / "in"
    for rel, data in files(corpus).items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(data)
    bad = src / "a" / "f007.txt"
    bad.write_bytes(b"caput \xff\xfe mortuum\n")
    r = parse_corpus(model, src, tmp_path / "out", "--skip-invalid", *how)
    assert r.exit_code == 0, r.output
    assert "Parsed 12 files" in said(r) and "1 input files skipped" in said(r) and f"{bad}:1: [E019]" in said(r)
    expected = {rel: data for rel, data in files(reference).items() if rel != Path("a/f007.conllu")}
    assert files(tmp_path / "out") == expected


def test_a_bad_file_without_skip_invalid_is_one_line_naming_the_option(model, tmp_path):
    """Without --skip-invalid a bad input stops the run: one line naming the file, its line, the
    reason and --skip-invalid, exit 1."""
    src = write_corpus(tmp_path / "in", 2)
    bad = src / "f009.txt"
    bad.write_bytes(b"caput \xff\xfe mortuum\n")
    r = parse_corpus(model, src, tmp_path / "out")
    assert r.exit_code == 1 and f"{bad}:1: [E019]" in r.output and "--skip-invalid" in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1


def test_outputs_name_their_pipeline_and_another_one_is_refused(model, corpus, tmp_path):
    """Each output's first line names the pipeline that wrote it; a rerun
    with another pipeline over the same outputs is refused in one line
    (nothing written), and --overwrite parses everything again with it."""
    r = parse_corpus(model, corpus, tmp_path / "out")
    assert r.exit_code == 0, r.output
    first = {rel: data.split(b"\n", 1)[0] for rel, data in files(tmp_path / "out").items()}
    assert len(set(first.values())) == 1
    assert next(iter(first.values())).startswith(b"# pipeline = xx_pipeline-0.0.0 (sha1 ")
    other = small_parser(tmp_path / "other", 20, epochs=1)
    before = files(tmp_path / "out")
    r = parse_corpus(other, corpus, tmp_path / "out")
    assert r.exit_code == 1 and "E117" in r.output and "13 complete output(s)" in said(r), r.output
    assert len(r.output.strip().splitlines()) == 1 and files(tmp_path / "out") == before
    r = parse_corpus(other, corpus, tmp_path / "out", "--overwrite")
    assert r.exit_code == 0 and "Parsed 13 files" in said(r), r.output
    assert {data.split(b"\n", 1)[0] for data in files(tmp_path / "out").values()} != set(first.values())


@pytest.mark.parametrize("how", [[], ["--n-process", "2"], ["--local-workers", "2"]])
def test_ctrl_c_says_how_far_it_got_in_one_line(model, tmp_path, how):
    """SIGINT mid-run, as Ctrl-C sends it to the whole process group: one
    line (files done, rerun to resume), exit 130, no traceback."""
    corpus = write_corpus(tmp_path / "in", 40, sents_per_file=20)
    cmd = [sys.executable, "-m", "spacy_planar", "parse-corpus", str(model), str(corpus), str(tmp_path / "out"), *how]
    # started as a shell starts a program in the foreground: SIGINT at its default, whatever this process has
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and not list((tmp_path / "out").rglob("*.conllu")):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    # off a terminal, the progress lines (progress.py) come before it
    lines = [line for line in (out + err).splitlines() if line.strip() and " words/s" not in line
             and " words [" not in line]
    assert proc.returncode == 130, out + err
    assert "Traceback" not in out + err and len(lines) == 1 and "interrupted:" in lines[0], out + err
    assert "run the same command again" in lines[0]
    # the files on disk, complete, however many workers finished after the interrupt
    on_disk = len(list((tmp_path / "out").rglob("*.conllu")))
    assert f"interrupted: {on_disk} of {len(list(corpus.rglob('*.*')))} files" in lines[0], (lines[0], on_disk)


def test_parse_streams_a_file_in_chunks_with_the_same_output(model, tmp_path, monkeypatch):
    """A file is read, parsed and written a chunk of sentences at a time (its
    memory a chunk's, not the file's): chunks of 3 give the bytes one chunk gives."""
    import spacy_planar.corpus.files as corpus_module

    gold = tmp_path / "in.conllu"
    gold.write_text("\n\n".join(blocks("dev", 0, 20)) + "\n\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(tmp_path / "whole.conllu")])
    assert r.exit_code == 0, r.output
    monkeypatch.setattr(corpus_module, "CHUNK", 3)
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(tmp_path / "chunks.conllu")])
    assert r.exit_code == 0 and "Parsed 20 sentences" in said(r), r.output
    assert (tmp_path / "chunks.conllu").read_bytes() == (tmp_path / "whole.conllu").read_bytes()
    # a HEAD that is no number in the last chunk: parse refuses the file as every reader of CoNLL-U
    # does, in one line, and writes nothing of it (the first chunks were parsed already)
    lines = gold.read_text(encoding="utf-8").split("\n")
    k = max(i for i, line in enumerate(lines) if line.startswith("2\t"))
    cols = lines[k].split("\t")
    cols[6] = "x"
    lines[k] = "\t".join(cols)
    gold.write_text("\n".join(lines), encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(tmp_path / "heads.conllu")])
    assert r.exit_code == 1 and f"{gold}:{k + 1}: [E005]" in r.output and not (tmp_path / "heads.conllu").exists()
    # a bad word line after the first chunks: one line, and no output at all
    cols[6] = "0"
    lines[k] = "\t".join(["7"] + cols[1:])
    gold.write_text("\n".join(lines), encoding="utf-8")
    r = CliRunner().invoke(app, ["parse", str(model), str(gold), str(tmp_path / "bad.conllu")])
    assert r.exit_code == 1 and f"{gold}:{k + 1}: [E004]" in r.output and not (tmp_path / "bad.conllu").exists()


def test_the_sentencizer_splits_lines_and_leaves_the_pipeline_alone(model, tmp_path):
    """`parse --sentencizer`: each line split into sentences, each with its
    own tree (one root each); the pipeline given is not changed."""
    import spacy

    from spacy_planar.corpus.files import parse_file

    text = tmp_path / "text.txt"
    text.write_text("jah qaþ du im . gaggiþ in þo haim .\n", encoding="utf-8")
    nlp = spacy.load(model)
    names = list(nlp.pipe_names)
    for split, n_sents in ((False, 1), (True, 2)):
        out = tmp_path / f"out{split}.conllu"
        parse_file(nlp, text, out, sentencizer=split)
        sents = list(read_conllu(out))
        assert len(sents) == n_sents and all(s.heads.count(0) == 1 for s in sents)
    assert nlp.pipe_names == names


def test_a_files_new_forms_leave_the_vocab_with_it(model, tmp_path):
    """parse_file in spaCy's memory zone: a file's unseen forms are not kept in the vocab after
    it (a worker over millions of words stays flat), and the same file parses the same again."""
    import spacy

    from spacy_planar.corpus.files import parse_file

    nlp = spacy.load(model)
    if not hasattr(nlp, "memory_zone"):
        pytest.skip("spaCy before 3.8 has no memory zone")
    text = tmp_path / "text.txt"
    text.write_text("jah qaþ xyzzyforma du im .\ngaggiþ in þo plughforma haim .\n", encoding="utf-8")
    parse_file(nlp, text, tmp_path / "warm.conllu")  # what a first parse adds for good (labels, tags)
    before = len(nlp.vocab.strings)
    parse_file(nlp, text, tmp_path / "one.conllu")
    assert "xyzzyforma" not in nlp.vocab.strings and len(nlp.vocab.strings) == before
    parse_file(nlp, text, tmp_path / "two.conllu")
    one = (tmp_path / "one.conllu").read_text(encoding="utf-8")
    assert "xyzzyforma" in one and one == (tmp_path / "two.conllu").read_text(encoding="utf-8")
    assert one == (tmp_path / "warm.conllu").read_text(encoding="utf-8")


SECOND_ROOT = '''
from spacy_planar.parser.shared.codec import TreeCodec

_from_system = TreeCodec.from_system


def from_system(self, tree):  # every tree of more than one word gets a second root: the codec repairs it (W090)
    heads, labels = _from_system(self, tree)
    if len(heads) > 1:
        k = next(i for i, h in enumerate(heads) if h != 0)
        heads[k], labels[k] = 0, self.settings.root_label
    return heads, labels


TreeCodec.from_system = from_system
'''


@pytest.mark.parametrize("how", [[], ["--n-process", "2"]])
def test_parse_and_parse_corpus_print_what_the_parser_repaired(model, tmp_path, how):
    """A parser whose trees come out with a second root (``sitecustomize`` makes it so, in every
    process): `parse` and `parse-corpus` (the pool's workers too) say how many sentences were
    repaired, by code, in one line, and the outputs are trees with one root."""
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(SECOND_ROOT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "SPACY_PLANAR_DEBUG"}  # warned and counted, not raised
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "hook"), env.get("PYTHONPATH", "")])
    corpus = write_corpus(tmp_path / "in", 4)
    cmd = [sys.executable, "-m", "spacy_planar", "parse-corpus", str(model), str(corpus), str(tmp_path / "out"), *how]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = [line for line in (res.stdout + res.stderr).splitlines() if "Repairs:" in line]
    assert len(lines) == 1 and "W090 extra roots attached" in lines[0], res.stdout + res.stderr
    assert re.search(r"Repairs: (\d+) \(W090 extra roots attached: \1\)", lines[0]), lines[0]
    parsed = [s for out in (tmp_path / "out").rglob("*.conllu") for s in read_conllu(out)]
    assert all(s.heads.count(0) == 1 for s in parsed)
    assert int(re.search(r"Repairs: (\d+)", lines[0]).group(1)) == sum(len(s.heads) > 1 for s in parsed)
    one = next(corpus.rglob("*.conllu"))
    res = subprocess.run([sys.executable, "-m", "spacy_planar", "parse", str(model), str(one),
                          str(tmp_path / "one.conllu")], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0 and "Repairs: " in res.stdout and "W090 extra roots attached" in res.stdout, res.stdout
