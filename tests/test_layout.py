"""The package's shape: no import cycle between its modules, no function over 80 lines, no class
over 300, no file over 400; at most 10 loose modules in parser/; every user error with its code."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "spacy_planar"


def modules():
    out = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
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


def test_the_product_names_nothing_of_the_lab():
    """No module outside lab/ imports the laboratory or names it in a string (an ``import_module``
    by name is an import too): the product finds its commands by the ``spacy_planar_lab`` entry
    point, which pyproject.toml declares and this installation has."""
    from importlib.metadata import entry_points

    known = modules()
    named = []
    for name, path in known.items():
        if name == "spacy_planar.lab" or name.startswith("spacy_planar.lab."):
            continue
        if any(m.startswith("spacy_planar.lab") for m in imports(name, path, known)):
            named.append((name, "import"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "spacy_planar.lab" in node.value:
                named.append((name, node.lineno))
    assert named == []
    assert [p.value for p in entry_points(group="spacy_planar_lab")] == ["spacy_planar.lab:lab_app"]


def test_no_function_over_80_lines():
    long = [(str(path.relative_to(PACKAGE.parent)), node.name, node.end_lineno - node.lineno + 1)
            for path in PACKAGE.rglob("*.py") for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 80]
    assert long == []


def test_no_class_over_300_lines_and_no_file_over_400():
    classes = [(str(path.relative_to(PACKAGE.parent)), node.name, node.end_lineno - node.lineno + 1)
               for path in PACKAGE.rglob("*.py") for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 300]
    assert classes == []
    files = [(str(path.relative_to(PACKAGE.parent)), n) for path in PACKAGE.rglob("*.py")
             if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400]
    assert files == []


def test_the_parser_is_in_rooms():
    """parser/ holds its rooms (systems, oracles, decoding, component, graph) and at most 10 loose modules."""
    loose = [p.name for p in (PACKAGE / "parser").glob("*.py")]
    assert len(loose) <= 10, loose
    assert {"systems", "oracles", "decoding", "component", "graph"} <= {p.name for p in (PACKAGE / "parser").iterdir()}


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
