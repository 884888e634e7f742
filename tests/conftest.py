import os
from pathlib import Path
from typing import Optional

import pytest

# what is never expected raises in the tests (spacy_planar.errors.unexpected), CLI subprocesses included
os.environ.setdefault("SPACY_PLANAR_DEBUG", "1")

if os.environ.get("PYTEST_XDIST_WORKER"):
    # one worker per core (pytest -n auto) already fills the cores: each keeps its numerical libraries
    # on one thread, its CLI subprocesses too, so that the workers' threads do not fight over them
    from threadpoolctl import threadpool_limits

    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    threadpool_limits(1)

try:
    from thinc.util import has_cupy_gpu
except ImportError:  # older thinc
    has_cupy_gpu = False
# the ops a model test runs on: numpy, and cupy where it has a GPU
OPS = ["numpy", pytest.param("cupy", marks=pytest.mark.skipif(not has_cupy_gpu, reason="no cupy with a GPU"))]

DATA = Path(os.environ.get("SPACY_PLANAR_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ud"))
# the treebank every test but the data-marked ones reads: a few hundred sentences of UD_Latin-UDante (CC BY-SA 4.0,
# tests/data/README.md), with non-projective trees and multiword tokens
FIXTURE = Path(__file__).resolve().parent / "data" / "la_udante"


def fixture_path(split: str = "train") -> Path:
    """The test treebank's split (``tests/data/la_udante``): 240 / 60 / 60 sentences."""
    return FIXTURE / f"{split}.conllu"


def treebank(name: str, split: str = "train") -> Path:
    """A shared treebank's split, for the tests marked ``data`` (README's test
    command leaves them out; on CI a missing treebank fails, elsewhere it skips)."""
    path = DATA / name / f"{split}.conllu"
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"shared treebank missing: {path}")
        pytest.skip(f"shared treebank not found: {path}")
    return path


def sample(src: Path, dst: Path, n: int) -> Path:
    """The first n sentences of a CoNLL-U file."""
    blocks = src.read_text(encoding="utf-8").split("\n\n")[:n]
    dst.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return dst


def first_docs(path: Path, vocab, n: int) -> list:
    """The first n sentences of a CoNLL-U file as Docs, the rest unread."""
    from itertools import islice

    from spacy_planar.io.conllu import conllu_to_docs

    return list(islice(conllu_to_docs(path, vocab), n))


def shortest_docs(vocab, n: int) -> list:
    """The test treebank's ``n`` shortest training sentences as Docs (in
    the treebank's order): for tests that train, at half the words of its first ``n``."""
    docs = first_docs(fixture_path(), vocab, 240)
    keep = set(sorted(range(len(docs)), key=lambda i: (len(docs[i]), i))[:n])
    return [d for i, d in enumerate(docs) if i in keep]


def small_parser(path: Path, n_sents: int, epochs: int, batch_size: Optional[int] = None, lang: str = "xx") -> Path:
    """The factory's planar_parser (arc-eager) trained a little on the
    ``n_sents`` shortest training sentences of the test treebank (``epochs`` passes in batches of
    ``batch_size``, default all at once), saved at ``path``: for the tests
    about files, packages and beams rather than accuracy (``lang``: the
    pipeline's language)."""
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example

    nlp = spacy.blank(lang)
    nlp.add_pipe("planar_parser")
    docs = shortest_docs(nlp.vocab, n_sents)
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d]), d) for d in docs]
    sgd = nlp.initialize(lambda: examples)
    size = batch_size or len(examples)
    for _ in range(epochs):
        for i in range(0, len(examples), size):
            nlp.update(examples[i:i + size], sgd=sgd)
    nlp.to_disk(path)
    return path


@pytest.fixture
def train_conllu() -> Path:
    """The test treebank's training split."""
    return fixture_path()


# Figure 1 of Nivre & Nilsson (2005), thesis Figure 3.1: "Z nich je jen jedna
# na kvalitu ." The arc jedna -> Z crosses je, which jedna does not dominate.
CZECH_HEADS = [5, 1, 0, 5, 3, 3, 6, 3]
CZECH_LABELS = ["AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]


# the files that take longest first (their times on 2 cores), so that pytest-xdist's workers end together
# rather than one waiting on another's last long file: --dist loadfile hands out whole files in the order
# collected, two to a worker ahead, once --no-loadscope-reorder (pyproject.toml) stops it from ordering them
# by their number of tests
LONGEST_FIRST = ("test_pipeline.py", "test_configs.py", "test_systems.py", "test_corpus.py", "test_transforms.py",
                 "test_cli.py", "test_package.py", "test_conllu_io.py", "test_beam.py", "test_user_path.py",
                 "test_vectors.py", "test_trees.py", "test_pseudoproj.py", "test_metrics.py", "test_kbest.py",
                 "test_stages.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable: the rest keep their order
