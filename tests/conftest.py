import os
from pathlib import Path

import pytest

# what is never expected raises in the tests (spacy_planar.errors.unexpected), CLI subprocesses included
os.environ.setdefault("SPACY_PLANAR_DEBUG", "1")

DATA = Path(os.environ.get("SPACY_PLANAR_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ud"))


def treebank(name: str, split: str = "train") -> Path:
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


@pytest.fixture
def got_train() -> Path:
    return treebank("got_proiel")


# Figure 1 of Nivre & Nilsson (2005), thesis Figure 3.1: "Z nich je jen jedna
# na kvalitu ." The arc jedna -> Z crosses je, which jedna does not dominate.
CZECH_HEADS = [5, 1, 0, 5, 3, 3, 6, 3]
CZECH_LABELS = ["AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]
