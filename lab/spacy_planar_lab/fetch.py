"""``lab fetch-ud``: what one of project.yml's ready-made pipelines (the ``zoo`` workflows) is built
from, and only that: each treebank's splits from its UD repository at one release into
``UD_DIR/<code>/<split>.conllu``, and a raw text's git repository. A file or folder already there is
kept, so that a folder of UD treebanks of one's own (``--vars.ud_dir``) builds without the network;
a host that cannot be reached is one line naming the file and how to give it locally."""
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import List, Optional

import typer

from spacy_planar.cli._app import msg
from spacy_planar.errors import Errors, UserError
from spacy_planar.io.conllu import atomic_output
from spacy_planar_lab._app import lab_app

UD_URL = "https://raw.githubusercontent.com/UniversalDependencies/{repo}/{release}/{code}-ud-{split}.conllu"
SPLITS = ("train", "dev", "test")
TIMEOUT = 60  # seconds


def _treebank(spec: str):
    """``CODE=REPO[:split,split]`` (la_llct=UD_Latin-LLCT:train): the code, repository and splits."""
    code, sep, rest = spec.partition("=")
    repo, _, splits = rest.partition(":")
    chosen = tuple(s for s in splits.split(",") if s) or SPLITS
    if not sep or not code or not repo or any(s not in SPLITS for s in chosen):
        raise UserError(Errors.E170.format(spec=spec))
    return code, repo, chosen


def _download(url: str, target: Path, local: str) -> None:
    """``url`` into ``target``, whole or not at all (``atomic_output``; nor is a folder made for it
    left)."""
    made = [d for d in (target.parent, *target.parent.parents) if not d.exists()]  # deepest first
    try:
        with atomic_output(target, "wb") as out:
            try:
                with urllib.request.urlopen(url, timeout=TIMEOUT) as source:
                    shutil.copyfileobj(source, out, 1 << 20)
            except urllib.error.HTTPError as e:
                raise UserError(Errors.E171.format(url=url, reason=f"{e.code} {e.reason}", target=target,
                                                   local=local)) from None
            except (urllib.error.URLError, OSError) as e:
                raise UserError(Errors.E171.format(url=url, reason=getattr(e, "reason", e), target=target,
                                                   local=local)) from None
    except BaseException:
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                pass
        raise


@lab_app.command("fetch-ud")
def fetch_ud(
    treebanks: List[str] = typer.Argument(..., help="CODE=REPO[:SPLITS] each (la_udante=UD_Latin-UDante, "
                                          "la_llct=UD_Latin-LLCT:train)"),
    ud_dir: Path = typer.Option(..., "--ud-dir", help="UD_DIR/<code>/<split>.conllu: kept where there, "
                                "fetched where not"),
    release: str = typer.Option(..., "--release", help="The UD release's tag (r2.15)"),
    raw: Optional[Path] = typer.Option(None, "--raw", help="A raw text: kept where there, cloned from --raw-git "
                                       "where not"),
    raw_git: Optional[str] = typer.Option(None, "--raw-git", help="The raw text's git repository"),
) -> None:
    """Fetch the treebanks (and the raw text) that a ready-made pipeline is built from, where missing.

    Nothing is fetched that UD_DIR already holds: with a local folder of UD
    treebanks (spacy project run zoo-la . --vars.ud_dir DIR) the workflow
    needs no network."""
    wanted = [_treebank(spec) for spec in treebanks]
    kept = fetched = 0
    for code, repo, splits in wanted:
        for split in splits:
            target = ud_dir / code / f"{split}.conllu"
            if target.is_file():
                kept += 1
                continue
            url = UD_URL.format(repo=repo, release=release, code=code, split=split)
            _download(url, target, local=f"--vars.ud_dir DIR with {code}/{split}.conllu ({repo} at {release})")
            fetched += 1
            msg.good(f"Fetched {target} ({repo} at {release})")
    if raw is not None and not raw.exists():
        if not raw_git:
            raise UserError(Errors.E031.format(path=raw))
        res = subprocess.run(["git", "clone", "--quiet", "--depth", "1", raw_git, str(raw)],
                             capture_output=True, text=True)
        if res.returncode:
            shutil.rmtree(raw, ignore_errors=True)
            reason = (res.stderr.strip().splitlines() or [f"git exit {res.returncode}"])[-1]
            raise UserError(Errors.E171.format(url=raw_git, reason=reason, target=raw,
                                               local="--vars.la_raw PATH (a text file, .xz, or a folder of them)"))
        fetched += 1
        msg.good(f"Cloned {raw_git} into {raw}")
    msg.good(f"{kept + fetched} file(s) ready in {ud_dir}: {fetched} fetched, {kept} already there")
