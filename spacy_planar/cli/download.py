"""``download``: a ready-made pipeline from an index, its checksum checked, installed with pip."""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import typer

from spacy_planar.cli._app import app, flag, msg
from spacy_planar.defaults import PIPELINES_INDEX
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.zoo import fetch, find, read_index


@app.command()
def download(
    name: Optional[str] = typer.Argument(None, help="The pipeline (la_llct_planar ...): spacy-planar download "
                                         "--list shows them"),
    index: str = typer.Option(PIPELINES_INDEX, "--index", "-i", help="The index: a URL or a file (package "
                              "writes one in OUT_DIR/dist)"),
    version: Optional[str] = typer.Option(None, "--version", "-v", help="That version (default: the newest)"),
    list_: bool = flag(False, "--list", "-l", help="List the index's pipelines and exit"),
) -> None:
    """Install a ready-made pipeline: fetched from the index, its sha256
    checked, installed with pip; then spacy.load("NAME")."""
    entries, base = read_index(index)
    if list_ or name is None:
        rows = [(e["name"], e["version"], e.get("lang", ""), ", ".join(e.get("treebanks", [])),
                 "; ".join(e.get("parsers", [])), e.get("license", ""),
                 f"{100 * e['scores']['LAS']:.2f}" if "LAS" in e.get("scores", {}) else "",
                 f"{e.get('size', 0) / 1e6:.1f} MB") for e in entries]
        msg.table(rows, header=("name", "version", "lang", "treebanks", "parsers", "licence", "test LAS", "size"),
                  divider=True)
        return
    entry = find(entries, name, version)
    with tempfile.TemporaryDirectory(prefix="spacy-planar-") as tmp:
        wheel = fetch(entry, base, Path(tmp))
        msg.good(f"{wheel.name}: sha256 as the index says")
        res = subprocess.run([sys.executable, "-m", "pip", "install", str(wheel)], capture_output=True, text=True)
        if res.returncode:
            last = (res.stderr.strip().splitlines() or ["pip failed"])[-1]
            raise UserError(Errors.E150.format(name=entry["name"], reason=last))
    msg.good(f"Installed {entry['name']} {entry['version']}: spacy.load(\"{entry['name']}\")")
