#!/usr/bin/env python3
"""The crate's public API, one line per item, from rustdoc's JSON output.

Why: every `pub` item reachable from the crate root is a promise to the crate's users. The
listing is committed (`public-api.txt`) and checked in the test command, so a change to what
we promise shows up as a diff a reviewer reads, as in crates that keep semver.

What it lists: each public module, type, trait, function, constant and re-export by the path
a user writes, with each struct's public fields, each enum's variants, the methods of its
inherent impls with their signatures, and the traits it implements (derived and automatic
trait impls are listed by trait name only). Items hidden with `#[doc(hidden)]` (the unstable
internals) are not part of the promise and are not listed.

Usage:
  scripts/public_api.py            print the listing (runs rustdoc)
  scripts/public_api.py --check    compare with public-api.txt; exit 1 and show a diff when
                                   they differ
  scripts/public_api.py --write    rewrite public-api.txt
  scripts/public_api.py --json F   read rustdoc's JSON from F instead of running rustdoc
"""

import argparse
import difflib
import json
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
LISTING = os.path.join(ROOT, "public-api.txt")
# Every feature a user may turn on; not the unstable internals.
FEATURES = "server,llm,client,orchestrator,sqlite,postgres,jwt,metrics,otel"
# Traits every type gets without asking: noise in a review.
AUTO = {"Send", "Sync", "Unpin", "UnsafeUnpin", "UnwindSafe", "RefUnwindSafe", "Freeze"}


def rustdoc_json():
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(
        ["cargo", "rustdoc", "--quiet", "--lib", "--features", FEATURES, "--",
         "-Z", "unstable-options", "--output-format", "json", "-A", "warnings"],
        cwd=ROOT, env=env, check=True,
    )
    return os.path.join(target, "doc", "a2ui_agent.json")


class Printer:
    def __init__(self, doc):
        self.doc = doc
        self.index = doc["index"]
        self.paths = doc.get("paths", {})

    def ty(self, t):
        """Rust-like text of a rustdoc type."""
        if t is None:
            return "()"
        (kind, v), = t.items()
        if kind == "resolved_path":
            return v["path"].split("::")[-1] + self.args(v.get("args"))
        if kind == "generic":
            return v
        if kind == "primitive":
            return v
        if kind == "borrowed_ref":
            life = (v["lifetime"] + " ") if v.get("lifetime") else ""
            mut = "mut " if v["is_mutable"] else ""
            return f"&{life}{mut}{self.ty(v['type'])}"
        if kind == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + self.ty(v["type"])
        if kind == "slice":
            return f"[{self.ty(v)}]"
        if kind == "array":
            return f"[{self.ty(v['type'])}; {v['len']}]"
        if kind == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ")"
        if kind == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if kind == "dyn_trait":
            return "dyn " + " + ".join(self.ty({"resolved_path": p["trait"]}) for p in v["traits"])
        if kind == "qualified_path":
            return f"<{self.ty(v['self_type'])}>::{v['name']}"
        if kind == "function_pointer":
            return "fn(..)"
        if kind == "infer":
            return "_"
        return kind

    def args(self, args):
        if not args:
            return ""
        (kind, v), = args.items()
        if kind == "angle_bracketed":
            parts = []
            for a in v.get("args", []):
                (ak, av), = a.items()
                parts.append(self.ty(av) if ak == "type" else (av if ak == "lifetime" else "_"))
            for c in v.get("constraints", []):
                binding = c.get("binding", {})
                if "equality" in binding and "type" in binding["equality"]:
                    parts.append(f"{c['name']} = {self.ty(binding['equality']['type'])}")
            return "<" + ", ".join(parts) + ">" if parts else ""
        if kind == "parenthesized":
            ins = ", ".join(self.ty(x) for x in v.get("inputs", []))
            out = v.get("output")
            return f"({ins})" + (f" -> {self.ty(out)}" if out else "")
        return ""

    def bound(self, b):
        if "trait_bound" in b:
            return self.ty({"resolved_path": b["trait_bound"]["trait"]})
        if "outlives" in b:
            return b["outlives"]
        return "?"

    def generics(self, g):
        names = []
        for p in g.get("params", []):
            kind = p["kind"]
            if "type" in kind and kind["type"].get("is_synthetic"):
                continue
            names.append(p["name"])
        return "<" + ", ".join(names) + ">" if names else ""

    def sig(self, name, f):
        h = f["header"]
        quals = ("const " if h["is_const"] else "") + ("async " if h["is_async"] else "")
        ins = []
        for arg, t in f["sig"]["inputs"]:
            if arg == "self":
                ins.append(self.ty(t).replace("Self", "self") if t != {"generic": "Self"} else "self")
            else:
                ins.append(f"{arg}: {self.ty(t)}")
        out = f["sig"].get("output")
        ret = f" -> {self.ty(out)}" if out else ""
        return f"{quals}fn {name}{self.generics(f['generics'])}({', '.join(ins)}){ret}"


def listing(doc):
    p = Printer(doc)
    index = p.index
    lines = set()
    seen = set()

    def item(i):
        return index.get(str(i))

    def type_members(path, it, kind):
        inner = it["inner"][kind]
        if kind == "struct":
            fields = inner["kind"].get("plain", {}).get("fields", []) if isinstance(inner["kind"], dict) else []
            for fid in fields:
                f = item(fid)
                if f and f["visibility"] == "public":
                    lines.add(f"{path}::{f['name']}: {p.ty(f['inner']['struct_field'])}")
            tuple_fields = inner["kind"].get("tuple") if isinstance(inner["kind"], dict) else None
            for n, fid in enumerate(tuple_fields or []):
                f = item(fid) if fid is not None else None
                if f and f["visibility"] == "public":
                    lines.add(f"{path}::{n}: {p.ty(f['inner']['struct_field'])}")
        if kind == "enum":
            for vid in inner["variants"]:
                v = item(vid)
                if v:
                    lines.add(f"{path}::{v['name']} (variant)")
        for iid in inner.get("impls", []):
            imp = item(iid)
            if not imp:
                continue
            im = imp["inner"]["impl"]
            if im.get("blanket_impl") is not None:
                continue
            if im.get("trait") is None:
                for mid in im["items"]:
                    m = item(mid)
                    if not m or m["visibility"] != "public":
                        continue
                    (mk, mv), = m["inner"].items()
                    if mk == "function":
                        lines.add(f"pub {p.sig(path + '::' + m['name'], mv)}")
                    elif mk == "assoc_const" or mk == "constant":
                        lines.add(f"{path}::{m['name']} (const)")
            else:
                trait = im["trait"]["path"].split("::")[-1]
                if trait in AUTO:
                    continue
                neg = "!" if im.get("is_negative") else ""
                lines.add(f"impl {neg}{trait}{p.args(im['trait'].get('args'))} for {path}")

    def walk(mid, path):
        if (mid, path) in seen:
            return
        seen.add((mid, path))
        mod = item(mid)
        if mod is None:
            return
        for cid in mod["inner"]["module"]["items"]:
            it = item(cid)
            if it is None:
                continue
            (kind, v), = it["inner"].items()
            if kind == "use":
                if it["visibility"] != "public":
                    continue
                target = item(v["id"]) if v.get("id") is not None else None
                name = v["name"]
                if v["is_glob"]:
                    if target and "module" in target["inner"]:
                        walk(v["id"], path)
                    continue
                if target is None:
                    lines.add(f"pub use {path}::{name} (from {v['source']})")
                    continue
                emit(target, f"{path}::{name}", v["id"])
                continue
            if it["visibility"] != "public" and kind not in ("impl",):
                continue
            emit(it, f"{path}::{it['name']}", cid)

    def emit(it, path, iid):
        (kind, v), = it["inner"].items()
        if kind == "module":
            lines.add(f"pub mod {path}")
            walk(iid, path)
        elif kind in ("struct", "enum", "union"):
            lines.add(f"pub {kind} {path}{p.generics(v['generics'])}")
            type_members(path, it, kind)
        elif kind == "trait":
            lines.add(f"pub trait {path}{p.generics(v['generics'])}")
            for mid in v["items"]:
                m = item(mid)
                if m and "function" in m["inner"]:
                    lines.add(p.sig(path + "::" + m["name"], m["inner"]["function"]))
                elif m:
                    lines.add(f"{path}::{m['name']} ({list(m['inner'])[0]})")
        elif kind == "function":
            lines.add(f"pub {p.sig(path, v)}")
        elif kind in ("constant", "static"):
            t = v.get("type") if kind == "constant" else v.get("type")
            lines.add(f"pub {kind} {path}: {p.ty(t) if t else '?'}")
        elif kind == "type_alias":
            lines.add(f"pub type {path}{p.generics(v['generics'])} = {p.ty(v['type'])}")
        elif kind == "macro":
            lines.add(f"pub macro {path}!")
        else:
            lines.add(f"pub {kind} {path}")

    walk(doc["root"], "a2ui_agent")
    return sorted(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    with open(args.json or rustdoc_json(), encoding="utf-8") as f:
        doc = json.load(f)
    text = "".join(line + "\n" for line in listing(doc))
    if args.write:
        with open(LISTING, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"public API: {text.count(chr(10))} lines written to public-api.txt")
        return 0
    if args.check:
        try:
            with open(LISTING, encoding="utf-8") as f:
                committed = f.read()
        except FileNotFoundError:
            committed = ""
        if committed == text:
            print(f"public API: {text.count(chr(10))} lines, as committed in public-api.txt")
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            committed.splitlines(True), text.splitlines(True), "public-api.txt (committed)", "public API (now)"))
        print("public API: it differs from public-api.txt; if the change is meant, run "
              "scripts/public_api.py --write and commit the file")
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
