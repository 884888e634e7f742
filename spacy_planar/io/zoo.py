"""Ready-made pipelines: the index that ``package`` writes beside the wheels
it builds (``dist/index.json``) and ``download`` reads, from the project's
release page, another URL or a file.

An index is a JSON list of entries, one per packaged pipeline: its name
(``la_llct_planar``), version, language, treebanks, licence, test scores,
the wheel's size and sha256, and its URL (relative to the index's, as
``package`` writes it, or absolute)."""
from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from spacy_planar.defaults import PIPELINES_INDEX
from spacy_planar.errors import Errors, UserError

INDEX = "index.json"
TIMEOUT = 60  # seconds to wait for the index or a wheel


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def index_entry(meta: Dict, wheel: Path) -> Dict:
    """A packaged pipeline's entry, from its meta and its wheel."""
    performance = meta.get("performance", {})
    return {"name": f"{meta['lang']}_{meta['name']}", "version": meta["version"], "lang": meta["lang"],
            "treebanks": [source.get("name", "") for source in meta.get("sources", [])],
            "license": meta.get("license", ""), "parsers": meta.get("parsers", []),
            "scores": {k[len("ud_test_"):].upper(): v for k, v in performance.items() if k.startswith("ud_test_")},
            "size": wheel.stat().st_size, "sha256": sha256(wheel), "url": wheel.name}


def add_to_index(dist: Path, entry: Dict) -> Path:
    """``dist/index.json`` with ``entry`` in it (an entry of the same name
    and version replaced)."""
    path = dist / INDEX
    entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    entries = [e for e in entries if (e["name"], e["version"]) != (entry["name"], entry["version"])] + [entry]
    path.write_text(json.dumps(sorted(entries, key=lambda e: (e["name"], e["version"])), indent=2) + "\n",
                    encoding="utf-8")
    return path


def _open(location: str):
    """A URL (http, https, file) or a path, opened for reading bytes; no
    network is one line (E148)."""
    if urllib.parse.urlparse(location).scheme in ("http", "https", "file"):
        try:
            return urllib.request.urlopen(location, timeout=TIMEOUT)
        except urllib.error.HTTPError as e:
            if e.code == 404:  # the server answers: nothing there (no release yet), not a network fault
                raise UserError(Errors.E157.format(location=location, reason="404 Not Found")) from None
            raise UserError(Errors.E148.format(location=location, reason=f"{e.code} {e.reason}")) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            if location == PIPELINES_INDEX:  # offline: what the default index holds is known
                from spacy_planar import __version__

                raise UserError(Errors.E162.format(location=location, reason=reason, version=__version__)) from None
            raise UserError(Errors.E148.format(location=location, reason=reason)) from None
    path = Path(location)
    if not path.is_file():
        if path.name == INDEX:  # an index that was never built
            raise UserError(Errors.E157.format(location=location, reason="no such file")) from None
        raise UserError(Errors.E031.format(path=path))
    return open(path, "rb")


def read_index(location: str) -> Tuple[List[Dict], str]:
    """The index's entries and the location its relative URLs start from."""
    with _open(location) as f:
        data = f.read()
    try:
        entries = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise UserError(Errors.E149.format(location=location, reason=e)) from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "name" in e and "sha256" in e for e in entries):
        raise UserError(Errors.E149.format(location=location, reason="not a list of pipelines"))
    return entries, location


def find(entries: List[Dict], name: str, version: Optional[str] = None) -> Dict:
    """The newest entry of that name (or that version); an unknown name is
    one line naming the nearest ones (E146)."""
    import difflib

    found = [e for e in entries if e["name"] == name and (version is None or e["version"] == version)]
    if not found:
        names = sorted({e["name"] for e in entries})
        near = difflib.get_close_matches(name, names, n=3) or names[:5]
        raise UserError(Errors.E146.format(name=name + (f" {version}" if version else ""),
                                           near=", ".join(near) or "none"))
    return max(found, key=lambda e: [int(p) if p.isdigit() else 0 for p in e["version"].split(".")])


def fetch(entry: Dict, base: str, folder: Path) -> Path:
    """The entry's wheel in ``folder``, its sha256 checked (E147: nothing kept)."""
    url = entry["url"]
    if not urllib.parse.urlparse(url).scheme and not Path(url).is_absolute():
        url = urllib.parse.urljoin(base, url) if urllib.parse.urlparse(base).scheme else str(Path(base).parent / url)
    target = folder / Path(urllib.parse.urlparse(url).path).name
    with _open(url) as source, open(target, "wb") as out:
        while True:
            block = source.read(1 << 20)
            if not block:
                break
            out.write(block)
    got = sha256(target)
    if got != entry["sha256"]:
        target.unlink()
        raise UserError(Errors.E147.format(url=url, want=entry["sha256"], got=got))
    return target
