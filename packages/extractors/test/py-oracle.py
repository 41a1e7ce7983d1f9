"""Python's own parser's view of Python files under the code extractor's rules (clarifications.md, "Code
extractor" and its amendment): the definitions, which definition defines which, the names imports bind, and the
callee name of each call attributed to the innermost function or method around it. Used as the oracle of
test/oracle-python.test.ts, which runs it with python3.

    python3 py-oracle.py --sample N   facts for N files of the standard library
    python3 py-oracle.py FILE...      facts for the given files

The output is one JSON object a line: first `{version, root}`, then one per file.

The sample: the .py files under the running interpreter's standard library directory (sysconfig's `stdlib`)
outside site-packages, sorted by their path relative to it, every k-th one (k = count // N) from the first, so
the same Python release always gives the same files. A file `ast.parse` rejects (the test suite's deliberate
syntax errors, Python 2 samples) or that is not UTF-8 (the extractor reads UTF-8) is reported as skipped.
"""

import ast
import json
import os
import sys
import sysconfig
import unicodedata
import warnings


def usable(name):
    """The graph keeps the ASCII letters and digits of a name's NFD form; a name without any is no node."""
    return any(c.isascii() and c.isalnum() for c in unicodedata.normalize("NFD", name))


def bound_names(node):
    """The names an import binds: `import a.b.c` → a, `import a.b as c` → c, `from x import y as z` → z,
    `from __future__ import annotations` → annotations, `from x import *` → none."""
    if isinstance(node, ast.Import):
        return [alias.asname or alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [alias.asname or alias.name for alias in node.names if alias.name != "*"]
    return []


def callee_name(call):
    """`f(x)` → f, `a.b.f(x)` → f; any other callee (`f()()`, `fns[0]()`) names nothing."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


class Facts:
    def __init__(self, module):
        self.module = module
        self.definitions = set()
        self.defines = set()
        self.imports = set()
        self.calls = set()

    def visit(self, node, owner, caller):
        """`owner`: the innermost definition (kind, name) around `node`; `caller`: the innermost function or
        method whose parameters or body hold it (decorators are evaluated outside the function)."""
        for name in bound_names(node):
            self.imports.add(name)
        if isinstance(node, ast.Call):
            callee = callee_name(node)
            if callee is not None:
                self.calls.add((caller[1] if caller else self.module, callee))

        definition = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and usable(node.name):
            if isinstance(node, ast.ClassDef):
                kind = "class"
            else:
                # A function directly inside a class body is a method.
                kind = "method" if owner and owner[0] == "class" else "function"
            definition = (kind, node.name)
            self.definitions.add(f"{kind}:{node.name}")
            if kind == "method":
                self.defines.add((owner[1], node.name))
            elif owner is None:
                self.defines.add((self.module, node.name))

        if definition is None:
            for child in ast.iter_child_nodes(node):
                self.visit(child, owner, caller)
            return
        inner_caller = definition if definition[0] != "class" else caller
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                if field == "decorator_list":
                    self.visit(child, owner, caller)
                else:
                    self.visit(child, definition, inner_caller)


def file_facts(path):
    module = os.path.splitext(os.path.basename(path))[0]
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"file": path, "skipped": "not UTF-8"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as error:
        return {"file": path, "skipped": f"ast.parse: {error}"}
    facts = Facts(module)
    facts.visit(tree, None, None)
    return {
        "file": path,
        "module": module,
        "definitions": sorted(facts.definitions),
        "defines": sorted(facts.defines),
        "imports": sorted(facts.imports),
        "calls": sorted(facts.calls),
    }


def sample(count):
    root = sysconfig.get_paths()["stdlib"]
    files = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [d for d in subdirectories if d not in ("site-packages", "__pycache__")]
        files.extend(
            os.path.relpath(os.path.join(directory, name), root) for name in names if name.endswith(".py")
        )
    files.sort()
    step = max(1, len(files) // count)
    return [os.path.join(root, relative) for relative in files[::step][:count]]


def main(argv):
    if len(argv) == 2 and argv[0] == "--sample":
        files = sample(int(argv[1]))
    else:
        files = argv
    sys.setrecursionlimit(10000)
    print(json.dumps({"version": f"Python {sys.version.split()[0]}", "root": sysconfig.get_paths()["stdlib"]}))
    for path in files:
        print(json.dumps(file_facts(path)))


if __name__ == "__main__":
    main(sys.argv[1:])
