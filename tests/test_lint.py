"""Lint and format with ruff, configured in pyproject.toml ([tool.ruff]: line length 120, double quotes, rules
E4 / E7 / E9 / F), no block of six or more lines copied between files, no function compiled with numba's own
kernel cache (keyed on its own file only), the import contracts of .importlinter (layers training > envs > sim >
sim.jit, the engine below sim's Python front, the compiler and reader apart from the engine, independent task
families, no cycles among siblings) and no import cycle among the modules of sim, envs and training, counting the
imports inside functions (which hide a cycle from the interpreter, not from the design).

`ruff check .` and `ruff format --check .` run on the whole repository (the one-off `ruff format` pass is done),
and so does the copied-block check.
"""

import ast
import collections
import functools
import hashlib
import os
import shutil
import subprocess
import sys


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ruff(*args):
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    out = subprocess.run(
        cmd + list(args), cwd=REPO, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    return out.returncode, out.stdout + out.stderr


def test_ruff_check_repository():
    rc, out = _ruff("check", "--no-cache", ".")
    assert rc == 0, out


def test_ruff_format_repository():
    rc, out = _ruff("format", "--check", "--no-cache", ".")
    assert rc == 0, out


# ---- copied blocks --------------------------------------------------------------------------------------------

BLOCK = 6  # lines
TRIVIAL = {")", "]", "}", "),", "],", "},", '"""', "else:", "try:", "return", "pass"}
CHECKED = ["sim", "envs", "training", "tests", "benchmarks"]


@functools.lru_cache(maxsize=None)
def _parse(text):
    """The syntax tree of a module's source (parsed once for the checks that read it)."""
    return ast.parse(text)


def _import_lines(text):
    """Line numbers (1-based) of the import statements of a module's source."""
    lines = set()
    for node in ast.walk(_parse(text)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def copied_blocks(paths, size=BLOCK):
    """{(file, file, ...): first lines} of the blocks of `size` consecutive code lines (stripped; blank, comment,
    bracket-only and import lines skipped, blocks under 120 characters ignored) that occur in more than one file.
    Import statements are skipped: a module names what it uses, and no shared helper can hold that for it."""
    files = []
    for path in paths:
        path = os.path.join(REPO, path)
        if os.path.isfile(path):
            files.append(path)
        for folder, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
    where = collections.defaultdict(set)
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        imports = _import_lines(text)
        lines = [(i + 1, t.strip()) for i, t in enumerate(text.splitlines())]
        lines = [(i, t) for i, t in lines if t and not t.startswith("#") and t not in TRIVIAL and i not in imports]
        for k in range(len(lines) - size + 1):
            block = "\n".join(t for _, t in lines[k : k + size])
            if len(block) >= 120:
                where[hashlib.sha1(block.encode()).digest()].add((os.path.relpath(path, REPO), lines[k][0]))
    found = collections.defaultdict(list)
    for locs in where.values():
        if len({p for p, _ in locs}) > 1:
            found[tuple(sorted({p for p, _ in locs}))].append(sorted(locs)[0])
    return dict(found)


def test_copied_blocks_detected(tmp_path):
    """The detector finds a six-line block in two files, and not a three-line one."""
    body = "".join(f"    value_{i} = compute_something_long(argument_{i}, other_argument_{i})\n" for i in range(6))
    for name, text in (("a.py", body), ("b.py", body), ("c.py", body[: len(body) // 2])):
        (tmp_path / name).write_text("def f():\n" + text)
    found = copied_blocks([str(tmp_path)])
    assert [tuple(os.path.basename(p) for p in files) for files in found] == [("a.py", "b.py")]


def test_copied_blocks_skip_imports(tmp_path):
    """The same long import list in two files is not a copied block; the same code after it is."""
    imports = "from package.module import (\n" + "".join(f"    long_imported_name_{i},\n" for i in range(8)) + ")\n"
    body = "".join(f"value_{i} = compute_something_long(argument_{i}, other_argument_{i})\n" for i in range(6))
    (tmp_path / "a.py").write_text(imports + "x = 1\n")
    (tmp_path / "b.py").write_text(imports + "y = 2\n")
    assert copied_blocks([str(tmp_path)]) == {}
    (tmp_path / "c.py").write_text(imports + body)
    (tmp_path / "d.py").write_text("import os\n" + body)
    found = copied_blocks([str(tmp_path)])
    assert [tuple(os.path.basename(p) for p in files) for files in found] == [("c.py", "d.py")]


def test_no_copied_blocks_repository():
    assert copied_blocks(CHECKED) == {}


# ---- kernel caches ---------------------------------------------------------------------------------------------


def _numba_cached_kernels(path):
    """Line numbers of functions in `path` decorated with numba's own njit / jit and cache=True."""
    with open(path, encoding="utf-8") as f:
        tree = _parse(f.read())
    numba_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "numba":
            numba_names.update(a.asname or a.name for a in node.names if a.name in ("njit", "jit"))
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            if not isinstance(dec, ast.Call):
                continue
            f = dec.func
            plain = (isinstance(f, ast.Name) and f.id in numba_names) or (
                isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "numba"
            )
            cached = any(k.arg == "cache" and isinstance(k.value, ast.Constant) and k.value.value for k in dec.keywords)
            if plain and cached:
                lines.append(node.lineno)
    return lines


def test_no_numba_cache_outside_sim_jit():
    """Functions that call our kernels are compiled with sim.jit's njit: numba's own cache=True keys a function on
    its own file alone, so it keeps serving a build of the engine kernels it calls after they change (a planted bug
    in the solver once passed test_solver that way)."""
    found = []
    for top in CHECKED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(REPO, top)):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            for fn in filenames:
                p = os.path.join(dirpath, fn)
                if fn.endswith(".py") and not p.startswith(os.path.join(REPO, "sim", "jit")):
                    found += [f"{os.path.relpath(p, REPO)}:{n}" for n in _numba_cached_kernels(p)]
    assert not found, found


# ---- import contracts and cycles --------------------------------------------------------------------------------


def test_import_contracts():
    """lint-imports with the repository's .importlinter (import-linter is in the lint extra: a missing one fails)."""
    try:
        import importlinter  # noqa: F401
    except ImportError:
        raise AssertionError("import-linter is not installed: pip install import-linter (the lint extra)") from None
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr


PACKAGES = ("sim", "envs", "training")
# the import cycle left (issue 48), inside sim's compiler: meshes, heightfields and materials import each other
# (mesh.py imports hfield / material inside a function, they import mesh.py's asset paths).  Shrink this set as
# they go.
KNOWN_CYCLES = frozenset()  # none left; a new cycle is a defect


def import_graph(root=REPO, packages=PACKAGES):
    """{module: the modules of `packages` it imports}, from every import statement of every module (inside
    functions too), each import resolved to the most specific module it names."""
    paths = {}
    for top in packages:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
            for n in names:
                if n.endswith(".py"):
                    mod = os.path.relpath(os.path.join(folder, n), root)[:-3].replace(os.sep, ".")
                    paths[mod[: -len(".__init__")] if mod.endswith(".__init__") else mod] = os.path.join(folder, n)

    def resolve(name):
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, path in paths.items():
        with open(path, encoding="utf-8") as f:
            tree = _parse(f.read())
        package = mod if path.endswith("__init__.py") else mod.rpartition(".")[0]
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                names = [base + "." + a.name for a in node.names] + [base]
            else:
                continue
            for name in names:
                target = resolve(name)
                if target:
                    if target != mod:
                        targets.add(target)
                    break
        graph[mod] = targets
    return graph


def import_cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each a sorted list."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_import_cycles_detected(tmp_path):
    """The scan finds a cycle closed by an import inside a function, and none in a chain."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (pkg / "c.py").write_text("import pkg.b\n")
    assert import_cycles(import_graph(str(tmp_path), ("pkg",))) == [["pkg.a", "pkg.b"]]
    (pkg / "b.py").write_text("x = 1\n")
    assert import_cycles(import_graph(str(tmp_path), ("pkg",))) == []


def test_no_new_import_cycles():
    """No import cycle among the modules of sim, envs and training but the known ones (KNOWN_CYCLES)."""
    cycles = import_cycles(import_graph())
    new = [c for c in cycles if not set(c) <= KNOWN_CYCLES]
    assert not new, new
