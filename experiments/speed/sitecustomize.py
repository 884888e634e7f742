"""Loaded by Python when this folder is on PYTHONPATH (across_commits.sh): the installed
spacy-planar's entry points replaced by those of the checkout SPACY_PLANAR_OLD, whose code is on
PYTHONPATH before this folder (Python 3.11+: tomllib)."""
import os
import tomllib
from importlib.metadata import EntryPoint, SelectableGroups

import catalogue

if "SPACY_PLANAR_OLD" in os.environ:
    groups = {group: [ep for ep in eps if not ep.value.startswith("spacy_planar")]
              for group, eps in catalogue.AVAILABLE_ENTRY_POINTS.items()}
    with open(os.path.join(os.environ["SPACY_PLANAR_OLD"], "pyproject.toml"), "rb") as f:
        for group, eps in tomllib.load(f)["project"].get("entry-points", {}).items():
            groups.setdefault(group, []).extend(EntryPoint(name, value, group) for name, value in eps.items())
    catalogue.AVAILABLE_ENTRY_POINTS = SelectableGroups(groups)
