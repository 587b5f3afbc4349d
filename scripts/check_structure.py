#!/usr/bin/env python3
"""The shape of src/, checked: no two files import each other (directly or round a circle),
no file over the line limit, no function over the line limit.

Why a script of our own: the arrows of docs/architecture.md point one way, and a circle between
files is how they start to point both ways without anyone noticing. rustc accepts circles between
modules of one crate, so nothing else would stop one.

How a reference is read: every `crate::`, `super::` and `self::` path in a file (in `use` trees
and in code) is followed segment by segment through the module files; a name a module brings in
with `use` is followed to where it is defined, so a parent's `pub use child::Item` façade is not
an arrow of its own. Test modules inside a file (`#[cfg(test)] mod tests { .. }`) are skipped.

Usage: scripts/check_structure.py [--max-file-lines N] [--max-fn-lines N] [SRC]
Exit status 1 when a check fails, with one line per finding.
"""

import argparse
import os
import re
import sys

ITEM = re.compile(
    r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const|extern\s+\"C\")\s+)*"
    r"(fn|struct|enum|trait|type|const|static|union|mod)\s+([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
MACRO = re.compile(r"macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)")
USE = re.compile(r"\buse\s+([^;]*);", re.S)
PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")
FN_START = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const)\s+)*fn\s+(\w+)")


def strip_comments_and_strings(text):
    """Blanks out comments, strings and char literals, keeping line breaks and offsets."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = len(re.match(r"r(#*)\"", text[i:]).group(1))
            end = text.find('"' + "#" * hashes, i + 2 + hashes)
            j = n if end < 0 else end + 1 + hashes
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_test_modules(code):
    """Blanks `#[cfg(test)] mod name { .. }` blocks: tests may use anything."""
    for m in reversed(list(re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", code))):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[:m.start()] + re.sub(r"[^\n]", " ", code[m.start():j]) + code[j:]
    return code


class Module:
    def __init__(self, path, file, dir_):
        self.path = path  # tuple of segments below the crate root
        self.file = file
        self.dir = dir_  # where its child module files live
        self.children = {}
        self.items = set()
        self.uses = {}  # name -> (module, segments) as written
        self.refs = []  # (module it was written in, segments)
        self.glob_uses = []


def parse_use_tree(text):
    """Expands `a::{b, c::d as e, f::*}` into (segments, alias) pairs."""
    text = re.sub(r"\s+", "", text)
    out = []

    def tree(s, prefix):
        i = 0
        while i < len(s):
            depth, j = 0, i
            while j < len(s) and not (s[j] == "," and depth == 0):
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
            one(s[i:j], prefix)
            i = j + 1

    def one(s, prefix):
        if not s:
            return
        brace = s.find("{")
        if brace >= 0:
            head = [p for p in s[:brace].split("::") if p]
            tree(s[brace + 1:s.rfind("}")], prefix + head)
            return
        alias = None
        if "as" in s and re.search(r"[A-Za-z0-9_]as[A-Za-z_]", s):
            m = re.match(r"(.*?[A-Za-z0-9_*])as([A-Za-z_][A-Za-z0-9_]*)$", s)
            if m:
                s, alias = m.group(1), m.group(2)
        segs = prefix + [p for p in s.split("::") if p]
        out.append((segs, alias))

    tree(text, [])
    return out


def load_crate(root_file):
    root_dir = os.path.dirname(root_file)
    modules = {}

    def load(path, file, dir_):
        mod = Module(path, file, dir_)
        modules[path] = mod
        with open(file, encoding="utf-8") as f:
            code = blank_test_modules(strip_comments_and_strings(f.read()))
        mod.code = code
        for m in ITEM.finditer(code):
            kind, name = m.group(1), m.group(2)
            if kind == "mod":
                rest = code[m.end():].lstrip()
                if rest.startswith(";"):
                    attr = re.search(r"#\[path\s*=\s*\"([^\"]+)\"\]\s*$", code[:m.start()].rstrip())
                    candidates = [os.path.join(dir_, name + ".rs"), os.path.join(dir_, name, "mod.rs")]
                    child = next((c for c in candidates if os.path.exists(c)), None)
                    if attr or child is None:
                        continue
                    child_dir = os.path.join(dir_, name)
                    mod.children[name] = load(path + (name,), child, child_dir)
                else:
                    mod.items.add(name)
            else:
                mod.items.add(name)
        for m in MACRO.finditer(code):
            mod.items.add(m.group(1))
        for m in USE.finditer(code):
            for segs, alias in parse_use_tree(m.group(1)):
                if not segs:
                    continue
                if segs[-1] == "*":
                    mod.glob_uses.append(segs[:-1])
                    mod.refs.append(segs[:-1])
                    continue
                name = alias or segs[-1]
                if name == "self":
                    name, segs = segs[-2] if len(segs) > 1 else name, segs[:-1]
                mod.uses[name] = segs
        # A name a `use` brings in is an arrow only where the module's own code names it: a
        # `pub use child::Item` that only re-exports is the module's face, not a dependency.
        body = USE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)
        for name, segs in mod.uses.items():
            if re.search(r"\b" + re.escape(name) + r"\b", body):
                mod.refs.append(segs)
        code = body
        for m in PATH.finditer(code):
            segs = [m.group(1)] + [p.strip() for p in m.group(2).split("::") if p.strip()]
            mod.refs.append(segs)
        return mod

    root = load((), root_file, root_dir)
    # Files no `mod` line names (modules a macro declares): placed by where they stand.
    loaded = {os.path.normpath(m.file) for m in modules.values()}
    skip = os.path.join(root_dir, "bin") if root_file.endswith("lib.rs") else None
    found = []
    for folder, _, files in os.walk(root_dir):
        if skip and os.path.commonpath([folder, skip]) == skip:
            continue
        for name in files:
            file = os.path.normpath(os.path.join(folder, name))
            if name.endswith(".rs") and file not in loaded:
                rel = os.path.relpath(file, root_dir)[:-3].split(os.sep)
                if rel[-1] == "mod":
                    rel = rel[:-1]
                found.append((len(rel), tuple(rel), file))
    for _, path, file in sorted(found):
        parent = modules.get(path[:-1])
        if parent is None or path in modules:
            continue
        child_dir = os.path.dirname(file) if file.endswith("mod.rs") else file[:-3]
        parent.children[path[-1]] = load(path, file, child_dir)
    return root, modules


def resolve(modules, here, segs, depth=0):
    """The file that defines what `segs`, written in module `here`, names (None: outside)."""
    if depth > 16 or not segs:
        return None
    first, rest = segs[0], segs[1:]
    if first == "crate":
        mod = modules[()]
    elif first == "super":
        mod = modules.get(here.path[:-1], here)
        while rest and rest[0] == "super":
            mod = modules.get(mod.path[:-1], mod)
            rest = rest[1:]
    elif first == "self":
        mod = here
    elif first in here.children:
        mod, rest = here.children[first], rest
    elif first in here.uses and here.uses[first] != segs:
        return resolve(modules, here, here.uses[first] + rest, depth + 1)
    else:
        return None  # an outside crate or a prelude name
    while rest:
        name, rest = rest[0], rest[1:]
        if name in mod.children:
            mod = mod.children[name]
            continue
        if name in mod.items:
            return mod.file
        if name in mod.uses:
            target = resolve(modules, mod, mod.uses[name] + rest, depth + 1)
            return target if target is not None else mod.file
        return mod.file
    return mod.file


def import_edges(modules):
    """file -> {file it imports: the paths that make the arrow}."""
    edges = {}
    for mod in modules.values():
        for segs in mod.refs:
            target = resolve(modules, mod, segs)
            if target and target != mod.file:
                edges.setdefault(mod.file, {}).setdefault(target, set()).add("::".join(segs))
    return edges


def circles(edges):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def long_functions(file, code, limit):
    lines = code.split("\n")
    found = []
    for i, line in enumerate(lines):
        m = FN_START.match(line)
        if not m:
            continue
        depth, started, j = 0, False, i
        while j < len(lines):
            for ch in lines[j]:
                if ch == "{":
                    depth, started = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not started and depth == 0:
                    j = len(lines)  # a declaration without a body
                    break
            if started and depth <= 0:
                break
            j += 1
        if started and j < len(lines) and j - i + 1 > limit:
            found.append((file, i + 1, m.group(1), j - i + 1))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "src"))
    ap.add_argument("--max-file-lines", type=int, default=600)
    ap.add_argument("--max-fn-lines", type=int, default=80)
    args = ap.parse_args()
    src = os.path.normpath(args.src)
    roots = [os.path.join(src, "lib.rs")]
    bins = os.path.join(src, "bin")
    if os.path.isdir(bins):
        for name in sorted(os.listdir(bins)):
            main_rs = os.path.join(bins, name, "main.rs")
            if os.path.exists(main_rs):
                roots.append(main_rs)
    problems = []
    seen_files = set()
    for root_file in roots:
        _, modules = load_crate(root_file)
        edges = import_edges(modules)
        for group in circles(edges):
            rel = [os.path.relpath(f, src) for f in group]
            problems.append("import circle between files: " + " , ".join(rel))
            for a in group:
                for b, why in sorted(edges.get(a, {}).items()):
                    if b in group:
                        names = ", ".join(sorted(why))
                        problems.append(f"    {os.path.relpath(a, src)} -> {os.path.relpath(b, src)}: {names}")
        for mod in modules.values():
            if mod.file in seen_files:
                continue
            seen_files.add(mod.file)
            with open(mod.file, encoding="utf-8") as f:
                count = sum(1 for _ in f)
            if count > args.max_file_lines:
                problems.append(f"{os.path.relpath(mod.file, src)}: {count} lines (limit {args.max_file_lines})")
            for file, line, name, n in long_functions(mod.file, mod.code, args.max_fn_lines):
                problems.append(f"{os.path.relpath(file, src)}:{line}: fn {name} has {n} lines (limit {args.max_fn_lines})")
    for p in problems:
        print(p)
    count = sum(1 for p in problems if not p.startswith(" "))
    print(f"structure: {len(seen_files)} files read, {count} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
