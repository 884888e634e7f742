"""An input file as the commands read it: compressed or not (``.gz``, ``.xz``, ``.bz2``, told by the
name or by the first bytes), a regular file or a stream (standard input, a pipe, a shell's process
substitution ``<(...)``). Readers look at a file more than once (its kind from its first bytes, a
word count for the progress bar, then its content): ``readable`` gives them a regular, plain file
to do so, a stream read once and a compressed file decompressed once into a temporary file, and
says the user's name, not the temporary one, in every error about its content."""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Callable, Iterator, Optional, Union

from spacy_planar.errors import Errors, InputError, Message, UserError

STDIN = "-"
_BY_SUFFIX = {".xz": lzma.open, ".lzma": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}
# a compressed file's first bytes (bzip2's: 'BZh', the block size, the block's magic number); none of them
# opens a UTF-8 text (0x1f 0x8b and 0xfd are no UTF-8 start) or a CoNLL-U file
_BY_MAGIC = ((b"\x1f\x8b", gzip.open), (b"\xfd7zXZ\x00", lzma.open), (b"BZh", bz2.open))
_BZIP2_BLOCK = b"1AY&SY"


def compression_suffix(path: Union[str, Path]) -> str:
    """The compression suffix of a file's name ('.gz', '.xz', '.bz2', '.lzma'), or ''."""
    suffix = Path(path).suffix.lower()
    return suffix if suffix in _BY_SUFFIX else ""


def decompressor(path: Union[str, Path], head: Optional[bytes] = None) -> Optional[Callable]:
    """The opener of a compressed file (by its name's suffix, else by its first bytes ``head``,
    read here where not given), or None for a plain one."""
    suffix = compression_suffix(path)
    if suffix:
        return _BY_SUFFIX[suffix]
    if head is None:
        with open(path, "rb") as f:
            head = f.read(10)
    for magic, opener in _BY_MAGIC:
        if head.startswith(magic) and (opener is not bz2.open or head[4:10] == _BZIP2_BLOCK):
            return opener
    return None


def open_bytes(path: Union[str, Path]) -> IO[bytes]:
    """A file's bytes, decompressed where it is compressed (``decompressor``)."""
    return (decompressor(path) or open)(path, "rb")


def plain_name(path: Union[str, Path]) -> Path:
    """A file's name without its compression suffix (``train.conllu.gz`` -> ``train.conllu``)."""
    path = Path(path)
    return path.with_suffix("") if compression_suffix(path) else path


def is_stream(path: Union[str, Path]) -> bool:
    """Whether ``path`` is standard input ('-') or a file that can be read only once (a pipe, a
    process substitution's /dev/fd/N, a character device)."""
    if str(path) == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def shown_name(path: Union[str, Path]) -> str:
    """How an input is named to the user: its path, or 'standard input' for '-'."""
    return "standard input" if str(path) == STDIN else str(path)


@contextmanager
def readable(path: Union[str, Path]) -> Iterator[Path]:
    """``path`` as a regular, uncompressed file that can be read as often as a reader needs: itself
    where it is one; standard input ('-') or another stream copied once, a compressed file
    decompressed once, into a temporary file, which is gone afterwards. An error about the
    temporary file's content (``InputError``: file, line, reason; any ``UserError`` naming it)
    names ``path``; a compressed file that cannot be read is one line (E113)."""
    from spacy_planar.io.conllu import check_input

    if str(path) != STDIN:
        check_input(path)
    stream = is_stream(path)
    opener = None if stream else decompressor(path)
    if not stream and opener is None:
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="spacy-planar-input-") as tmp:
        given = Path(tmp) / plain_name("stdin" if str(path) == STDIN else Path(path).name)
        with given.open("wb") as out:
            if str(path) == STDIN:
                shutil.copyfileobj(sys.stdin.buffer, out)
            else:
                with open(path, "rb") as f:
                    shutil.copyfileobj(f, out)
        if opener is None and stream:  # a stream's content may be compressed too
            opener = decompressor(path="", head=given.read_bytes()[:10])
        if opener is not None:
            given = _decompressed(given, opener, shown_name(path))
        shown = shown_name(path)
        try:
            yield given
        except InputError as e:
            if e.path != str(given):
                raise
            raise type(e)(shown, e.line, e.reason) from None
        except UserError as e:
            if str(given) not in str(e):
                raise
            raise type(e)(Message(str(e).replace(str(given), shown), e.code)) from None


def _decompressed(copied: Path, opener: Callable, shown: Union[str, Path]) -> Path:
    """``copied`` decompressed beside it (the copy removed); E113 naming ``shown`` where it cannot be."""
    out = copied.with_name(copied.name + ".plain")
    try:
        with opener(copied, "rb") as f, out.open("wb") as w:
            shutil.copyfileobj(f, w)
    except (EOFError, lzma.LZMAError, OSError) as e:  # cut short, or not compressed as its name says
        raise InputError(str(shown), 1, Errors.E113.format(reason=e)) from None
    copied.unlink()
    return out.rename(copied)
