#!/usr/bin/env python3
"""The longest Rust functions of the project's non-test code, and the limits CI holds them to.

Reads every `.rs` file under the crates' `src/` folders (the root crate, simdx-core, simdx-algos,
simdx-cuda, simdx-macros, python/src), leaving out test code: `tests/` folders, `tests.rs` files and
`#[cfg(test)] mod ... { }` blocks. A function runs from its `fn` line to its closing brace (comments,
strings and character literals do not count as braces). Prints the longest few with their places, and
exits 1 when a function in simdx-cuda/src is over 120 lines or any other over 150.

Usage: python3 scripts/function-lengths.py [--top N]
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["src", "simdx-core/src", "simdx-algos/src", "simdx-cuda/src", "simdx-macros/src", "python/src"]
LIMITS = [("simdx-cuda/src/", 120), ("", 150)]


def code_only(text):
    """`text` with comments, strings and character literals blanked out (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif re.match(r'b?r#*"', text[i : i + 8]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'b?r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + m.end())
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j + 1))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def closing(code, start):
    """The index of the brace closing the one at `start`."""
    depth = 0
    for j in range(start, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def functions(path):
    """(name, first line, lines) of each function with a body in `path`, test modules left out."""
    code = code_only(open(path, encoding="utf-8").read())
    skipped = []
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
        skipped.append((m.start(), closing(code, m.end() - 1)))
    for m in re.finditer(r"\bfn\s+(\w+)", code):
        if any(a <= m.start() <= b for a, b in skipped):
            continue
        body = re.compile(r"[{;]").search(code, m.end())
        if not body or body.group() == ";":
            continue
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, closing(code, body.start())) + 1
        yield m.group(1), first, last - first + 1


def main():
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 8
    found = []
    for folder in SOURCES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = [d for d in dirnames if d != "tests"]
            for name in filenames:
                if name.endswith(".rs") and name != "tests.rs":
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, ROOT)
                    found += [(lines, f"{rel}:{line}", fn) for fn, line, lines in functions(path)]
    found.sort(reverse=True)
    print(f"the longest of {len(found)} functions (non-test code):")
    for lines, place, fn in found[:top]:
        print(f"  {lines:4} lines  {fn}  {place}")
    over = []
    for lines, place, fn in found:
        limit = next(limit for prefix, limit in LIMITS if place.startswith(prefix))
        if lines > limit:
            over.append(f"{fn} at {place} has {lines} lines (the limit there is {limit})")
    for line in over:
        print("too long: " + line)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
