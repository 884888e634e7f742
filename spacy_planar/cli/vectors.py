"""``vectors``: floret vectors for a language from its own text, the spaCy way.

floret (fastText with subword hashing into a fixed table, spaCy's vectors for
rich morphology) is trained on the word forms of CoNLL-U files and on plain
text, then converted as ``spacy init vectors --mode floret`` does; a config
reads them with ``--paths.vectors DIR`` and
``--components.tok2vec.model.embed.embed.include_static_vectors true``. Nothing
is downloaded: the text is the user's.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import List

import typer

from ..conllu_io import file_kind, read_conllu
from ..errors import Errors, UserError
from ._app import USER_ERRORS, app, fail, msg


def write_text(sources: List[Path], out: Path) -> int:
    """The training text of ``sources`` in ``out``, one line per sentence:
    a CoNLL-U file's word forms, a plain text file's lines (told apart by
    content).
    Returns the number of words."""
    words = 0
    with out.open("w", encoding="utf-8") as f:
        for path in sources:
            if file_kind(path) == "conllu":
                lines = (" ".join(sent.forms) for sent in read_conllu(path))
            else:
                lines = (line.strip() for line in path.open(encoding="utf-8"))
            for line in lines:
                if line:
                    f.write(line + "\n")
                    words += len(line.split())
    return words


def train_floret(text: Path, out: Path, model: str, dim: int, epochs: int, minn: int, maxn: int, bucket: int,
                 min_count: int, threads: int) -> None:
    """floret's vectors of ``text`` (``model``: cbow or skipgram; two hashes
    per subword into ``bucket`` rows, as spaCy's floret pipelines use),
    saved in floret's text format at ``out``."""
    try:
        import floret
    except ImportError:
        raise UserError(Errors.E035) from None
    if model not in ("cbow", "skipgram"):
        raise UserError(Errors.E036.format(model=model))
    trained = floret.train_unsupervised(str(text), model=model, mode="floret", hashCount=2, bucket=bucket,
                                        minn=minn, maxn=maxn, dim=dim, epoch=epochs, minCount=min_count,
                                        thread=threads, verbose=0)
    trained.save_floret_vectors(str(out))


@app.command()
def vectors(
    output_dir: Path = typer.Argument(..., help="Directory for the vectors (a blank pipeline): --paths.vectors"),
    sources: List[Path] = typer.Argument(..., help="CoNLL-U files (their word forms) and plain text files"),
    lang: str = typer.Option("xx", "--lang", "-l", help="Language of the pipeline the vectors are stored in"),
    model: str = typer.Option("cbow", "--model", help="cbow or skipgram (skipgram: better on small text)"),
    dim: int = typer.Option(100, "--dim", help="Vector width"),
    epochs: int = typer.Option(10, "--epochs", help="Passes over the text (a treebank's own text, some 30,000 "
                               "words, needs 30-50; a corpus of millions, 5-10)"),
    minn: int = typer.Option(3, "--minn", help="Shortest character n-gram"),
    maxn: int = typer.Option(5, "--maxn", help="Longest character n-gram"),
    bucket: int = typer.Option(50000, "--bucket", help="Rows of the hashed table (the vectors' size)"),
    min_count: int = typer.Option(1, "--min-count", help="Words seen fewer times get no vector of their own"),
    threads: int = typer.Option(1, "--threads", help="floret's threads (1: the same vectors on every run)"),
) -> None:
    """Train floret vectors on a language's own text and store them for spaCy.

    Train floret vectors (subword-hashed, for unseen inflected forms) on
    the word forms of CoNLL-U files and on plain text, and convert them as
    `spacy init vectors --mode floret` does. Use them with `--paths.vectors
    OUTPUT_DIR --components.tok2vec.model.embed.embed.include_static_vectors
    true`."""
    import spacy
    from spacy.training.initialize import convert_vectors

    if output_dir.exists():
        fail(Errors.E033.format(path=output_dir))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            words = write_text(sources, Path(tmp) / "text.txt")
            if words == 0:
                raise UserError(Errors.E034.format(sources=", ".join(map(str, sources))))
            train_floret(Path(tmp) / "text.txt", Path(tmp) / "vectors.floret", model, dim, epochs, minn, maxn,
                         bucket, min_count, threads)
        except USER_ERRORS as e:
            fail(str(e))
        nlp = spacy.blank(lang)
        convert_vectors(nlp, Path(tmp) / "vectors.floret", truncate=0, prune=-1, mode="floret")
        nlp.to_disk(Path(tmp) / "pipeline")
        shutil.move(str(Path(tmp) / "pipeline"), str(output_dir))
    msg.good(f"Wrote {output_dir}: floret vectors ({bucket} x {dim}) from {words:,} words")
    print(f"Train with: --paths.vectors {output_dir} --components.tok2vec.model.embed.embed.include_static_vectors true")
