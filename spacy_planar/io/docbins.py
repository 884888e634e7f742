"""DocBins read and written with their Docs' user data, as spaCy's
``DocBin.get_docs`` and ``DocBin.add`` do, at a cost that does not grow with
the installed packages.

spaCy (de)serialises each Doc's ``user_data`` with ``srsly.msgpack_loads`` /
``msgpack_dumps``, and srsly looks up its msgpack decoders / encoders in a
catalogue registry on every call; the lookup filters every installed
package's entry points: about 1 ms a Doc on the machines here, more than the
rest of reading the Doc (a treebank of 10,000 sentences: 10 s each time the
training reader reads it, each epoch). Here the hooks are looked up once per
DocBin (srsly's own Packer, made once, for writing), and the bytes are
those srsly reads and writes."""
from __future__ import annotations

import copy
import functools
import zlib
from pathlib import Path
from typing import Iterable, Iterator, Union

import srsly
from spacy.tokens import Doc, DocBin

from spacy_planar.errors import Errors, UserError


def load_docbin(path: Union[str, Path], store_user_data: bool = False) -> DocBin:
    """The DocBin in the file at ``path``; a one-line error (E151) where
    its bytes are not one (spaCy's own error is a traceback)."""
    try:
        return DocBin(store_user_data=store_user_data).from_disk(path)
    except (ValueError, KeyError, TypeError, zlib.error, srsly.msgpack.exceptions.UnpackException) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UserError(Errors.E151.format(path=path, reason=reason)) from None


def docbin_docs(doc_bin: DocBin, vocab) -> Iterator[Doc]:
    """``doc_bin.get_docs(vocab)``: its Docs, each with its user data."""
    hook = None
    for decoder in srsly.msgpack_decoders.get_all().values():
        hook = functools.partial(decoder, chain=hook)

    def as_dict(pairs):  # srsly's object_hook, on the dict msgpack would make
        obj = dict(pairs)
        return hook(obj) if hook is not None else obj

    user_data = doc_bin.user_data
    plain = copy.copy(doc_bin)  # the same arrays; get_docs reads user data whenever the list holds some
    plain.user_data = []
    for i, doc in enumerate(plain.get_docs(vocab)):
        if i < len(user_data) and user_data[i] is not None:
            doc.user_data.update(srsly.msgpack.loads(user_data[i], raw=False, use_list=False,
                                                     object_pairs_hook=as_dict))
        yield doc


def add_docs(doc_bin: DocBin, docs: Iterable[Doc]) -> None:
    """``doc_bin.add(doc)`` for each Doc, its user data kept where
    ``doc_bin.store_user_data`` says."""
    packer = srsly.msgpack.Packer(use_bin_type=True)  # srsly.msgpack_dumps's, made once
    keep, doc_bin.store_user_data = doc_bin.store_user_data, False
    try:
        for doc in docs:
            doc_bin.add(doc)
            if keep:
                doc_bin.user_data.append(packer.pack(doc.user_data))
    finally:
        doc_bin.store_user_data = keep
