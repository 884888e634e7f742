"""The package's shape, and the laboratory's: no import cycle between their modules, no function
over 60 lines (the Cython modules' too), no class over 300, no file over 400; four loose modules
at the package's top and at most 10 in parser/; every user error with its code."""
import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "spacy_planar"
LAB = PACKAGE.parent / "lab" / "spacy_planar_lab"


def sources(suffix: str = "py"):
    """The product's and the laboratory's source files."""
    return [*PACKAGE.rglob(f"*.{suffix}"), *LAB.rglob(f"*.{suffix}")]


def modules():
    out = {}
    for path in sources():
        base = LAB.parent if path.is_relative_to(LAB) else PACKAGE.parent
        name = ".".join(path.relative_to(base).with_suffix("").parts)
        out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


def imports(name, path, known):
    """The package's modules ``name`` imports, at the top or inside a
    function (a lazy import is an edge too); names taken from a package's
    __init__ count as an edge to it, its compiled submodules (``_core``) not."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            subs = {f"{base}.{a.name}" for a in node.names} & set(known)
            if subs:
                out |= subs
            elif base in known and not all(a.name.startswith("_") for a in node.names):
                out.add(base)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names} & set(known)
    return out - {name}


def test_no_import_cycle():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    # Tarjan's strongly connected components: a cycle is a component of more than one module
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []
    assert "spacy_planar.corpus.files" in graph["spacy_planar.cli.parse"]  # the graph is read at all
    assert "spacy_planar_lab.bench" in graph["spacy_planar_lab.bench_train"]  # and the laboratory's


def test_the_product_names_nothing_of_the_lab():
    """No product module imports the laboratory (a package of its own, ``lab/``) or names it in a
    string (an ``import_module`` by name is an import too): the product finds its commands by the
    ``spacy_planar_lab`` entry point, which lab/pyproject.toml declares and spacy-planar's does not;
    the product's wheel has no lab (``packages.find``), and the two versions are one."""
    import tomllib
    from importlib.metadata import entry_points

    import spacy_planar
    import spacy_planar_lab

    known = {name: path for name, path in modules().items() if not name.startswith("spacy_planar_lab")}
    named = []
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
                if any(m and m.startswith("spacy_planar_lab") for m in found):
                    named.append((name, "import"))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "spacy_planar_lab." in node.value:
                named.append((name, node.lineno))
    assert named == []
    assert [p.value for p in entry_points(group="spacy_planar_lab")] == ["spacy_planar_lab:lab_app"]
    product = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    lab = tomllib.loads((PACKAGE.parent / "lab" / "pyproject.toml").read_text(encoding="utf-8"))
    assert "spacy_planar_lab" not in product["project"].get("entry-points", {})
    assert "spacy_planar_lab" in lab["project"]["entry-points"]
    assert product["tool"]["setuptools"]["packages"]["find"]["include"] == ["spacy_planar*"]
    assert not (PACKAGE / "lab").exists() and spacy_planar_lab.__version__ == spacy_planar.__version__


def test_without_the_lab_spacy_planar_lab_says_how_to_get_it_in_one_line(monkeypatch):
    from typer.testing import CliRunner

    from spacy_planar.cli import _app

    monkeypatch.setattr(_app, "LAB_ENTRY_POINTS", "no_such_group")  # as where the lab is not installed
    app = _app.typer.Typer(cls=_app.OneLineErrors)
    app.add_typer(_app.typer.Typer(cls=_app.LabGroup, rich_markup_mode=None), name="lab")
    r = CliRunner().invoke(app, ["lab", "stats", "x.conllu"])
    assert r.exit_code == 1 and "E161" in r.output and "pip install" in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1


def test_no_function_over_60_lines():
    long = [(str(path.relative_to(PACKAGE.parent)), node.name, node.end_lineno - node.lineno + 1)
            for path in sources() for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 60]
    assert long == []
    cython = [(str(path.relative_to(PACKAGE.parent)), name, n) for path in sources("pyx")
              for name, n in cython_functions(path.read_text(encoding="utf-8")) if n > 60]
    assert cython == []
    assert len([f for path in sources("pyx") for f in cython_functions(path.read_text(encoding="utf-8"))]) > 20


def cython_functions(text: str):
    """(name, lines) of each def / cdef / cpdef function of a Cython module: from its line to
    its body's last line (the next line as little indented that is not blank or a comment)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        match = re.match(r"^(\s*)(?:def|cpdef|cdef)\s[^=]*?(\w+)\s*\(", line)
        if not match:
            continue
        indent = len(match.group(1))
        end = i
        for j in range(i + 1, len(lines)):
            stripped = lines[j].strip()
            if stripped and not stripped.startswith("#"):
                if len(lines[j]) - len(lines[j].lstrip()) <= indent:
                    break
                end = j
        out.append((match.group(2), end - i + 1))
    return out


def test_no_class_over_300_lines_and_no_file_over_400():
    classes = [(str(path.relative_to(PACKAGE.parent)), node.name, node.end_lineno - node.lineno + 1)
               for path in sources() for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 300]
    assert classes == []
    files = [(str(path.relative_to(PACKAGE.parent)), n) for path in sources() + sources("pyx")
             if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400]
    assert files == []


def test_the_parser_is_in_rooms():
    """parser/ holds its rooms and at most 10 loose modules; the package's top four (the
    entry point, the version, every default, every error): everything else in a room."""
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py", "defaults.py", "errors.py"]
    loose = [p.name for p in (PACKAGE / "parser").glob("*.py")]
    assert len(loose) <= 10, loose
    assert set(ROOMS) <= {p.name for p in (PACKAGE / "parser").iterdir()}


# each parser's rooms; neither imports the other's (what both use is in parser/shared, which imports neither)
ROOMS = {"transition": "transition", "systems": "transition", "oracles": "transition", "graph": "graph",
         "shared": None, "ensembles": None}


def test_the_two_parsers_are_siblings_over_a_shared_room():
    known = modules()
    crossing = []
    for name, path in known.items():
        parts = name.split(".")
        if parts[:2] != ["spacy_planar", "parser"] or len(parts) < 4 or parts[2] not in ROOMS:
            continue
        mine = ROOMS[parts[2]]
        for target in imports(name, path, known):
            tparts = target.split(".")
            theirs = ROOMS.get(tparts[2]) if tparts[:2] == ["spacy_planar", "parser"] and len(tparts) > 2 else None
            if theirs is not None and ((mine is None and parts[2] == "shared") or (mine and theirs != mine)):
                crossing.append((name, target))
    assert crossing == []


def test_every_user_error_is_raised_with_its_code():
    """Each ``UserError`` (and ``InputError``, ``ConlluError``) the package raises is made from a
    message of ``Errors``, which carries its code, or passes one on (a name): never a string built
    on the spot, whose code would be lost; and every message of ``Errors`` knows its code."""
    from spacy_planar.errors import Errors

    built = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                    "UserError", "InputError", "ConlluError") and node.args:
                message = node.args[-1] if node.func.id != "UserError" else node.args[0]
                source = ast.get_source_segment(text, message)
                if not (source.startswith("Errors.") or isinstance(message, ast.Name)):
                    built.append((str(path.relative_to(PACKAGE.parent)), node.lineno, source))
    assert built == []
    codes = [name for name in vars(Errors) if name[:1] == "E" and name[1:].isdigit()]
    assert len(codes) > 100 and all(getattr(Errors, name).code == name for name in codes)


def test_a_plain_install_pulls_no_torch():
    """PyTorch (and spacy-transformers, which brings it) only by an extra: [torch], [trf]."""
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    reqs = [Requirement(r) for r in requires("spacy-planar")]
    plain = {r.name for r in reqs if r.marker is None}
    assert {"spacy", "thinc", "numpy", "conllu"} <= plain
    assert not plain & {"torch", "spacy-transformers"}
    assert any(r.name == "torch" and r.marker.evaluate({"extra": "torch"}) for r in reqs)


# the parser's rooms by floor: a module imports only its own floor's rooms or those below (ensembles/ reads
# both parsers; the decider among them; the parsers read shared/ and their own systems and oracles)
FLOORS = {"ensembles": 4, "transition": 3, "oracles": 2, "graph": 2, "systems": 1, "shared": 1}


def test_no_room_of_the_parser_imports_one_above_it():
    known = modules()
    upward = []
    for name, path in known.items():
        parts = name.split(".")
        if parts[:2] != ["spacy_planar", "parser"] or len(parts) < 4 or parts[2] not in FLOORS:
            continue
        for target in imports(name, path, known):
            tparts = target.split(".")
            if tparts[:2] == ["spacy_planar", "parser"] and len(tparts) > 2 and tparts[2] in FLOORS \
                    and FLOORS[tparts[2]] > FLOORS[parts[2]]:
                upward.append((name, target))
    assert upward == []
