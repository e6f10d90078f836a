#!/usr/bin/env python3
"""Import cycles between the modules of each crate: for every folder of modules (a crate's `src`,
and each module folder below it), the graph of which sibling module names which (`crate::x` from the
top, `super::x` between siblings, comments and `#[cfg(test)]` parts left out), and its strongly
connected components. Prints each folder with its cycles; exits 1 if there is any.

    scripts/module-cycles.py            # every crate of the workspace
"""

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["src", "simdx-core/src", "simdx-cuda/src", "simdx-algos/src", "simdx-macros/src"]


def code(path):
    text = re.sub(r"//[^\n]*", "", path.read_text())
    return text.split("#[cfg(test)]")[0]


def module_files(folder):
    """Each module of `folder` with the files that make it up (a file, or a folder's files)."""
    modules = {}
    for entry in sorted(folder.iterdir()):
        if entry.suffix == ".rs" and entry.stem not in ("mod", "lib", "main"):
            modules.setdefault(entry.stem, []).append(entry)
        elif entry.is_dir():
            modules.setdefault(entry.name, []).extend(entry.rglob("*.rs"))
    return modules


def graph(folder, top):
    modules = module_files(folder)
    g = {}
    for name, files in modules.items():
        deps = set()
        for f in files:
            text = code(f)
            if top:
                deps |= set(re.findall(r"\bcrate::(\w+)", text))
            if f.parent == folder:
                deps |= set(re.findall(r"\bsuper::(\w+)", text))
            else:
                # A module folder's own files reach their siblings at this level through super::super.
                deps |= set(re.findall(r"\bsuper::super::(\w+)", text))
        g[name] = {d for d in deps if d != name and d in modules}
    return g


def cycles(g):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
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
                out.append(sorted(component))

    for v in g:
        if v not in index:
            visit(v)
    return out


def main():
    found = False
    for crate in CRATES:
        src = ROOT / crate
        folders = [src] + sorted(p for p in src.rglob("*") if p.is_dir() and any(p.glob("*.rs")))
        for folder in folders:
            found_here = cycles(graph(folder, folder == src))
            print(f"{folder.relative_to(ROOT)}: {found_here or 'no cycles'}")
            found |= bool(found_here)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
