#!/usr/bin/env python3
"""Measure the floors of `crates/colmena-core/src` from its `crate::` paths.

Why: issue 34 gives the core floors, and this script is the yardstick the
issue asks for (before/after figures in the closing note). It reads the
same edges `tests/layers.rs` guards — every `crate::a::b` path in a source
file, in `use` lines or inline — and reports:

* files: how many source files, and the largest import circle among them
  (a strongly connected component of the file graph);
* rooms: a room is a top-level module (`inbox/` and `inbox.rs` are one
  room); the folder-level arrows between rooms, the floors those arrows
  make, and how many arrows run back up. Floors need an order without
  circles: the arrows that run back up are the fewest the greedy
  Eades–Lin–Smyth ordering must drop to leave the room graph acyclic, and
  every other arrow runs down;
* `crate::X` imports routed through `lib.rs` (a name taken from the crate
  root instead of its module);
* once `tests/layers.rs` declares floors: the file imports, and the
  folder arrows (room or table entry to room or table entry), that run up
  that table.

`--no-tests` leaves out test code (files named `tests.rs` or under a
`tests/` folder, and everything after a file's first `#[cfg(test)]`).
`--crate-only` counts only `crate::` paths (the acceptance's edges);
by default `super::`, `self::` and child-module paths count too.
`--list` prints the circle's files and the arrows running back up.

Usage: scripts/core-layers.py [--no-tests] [--crate-only] [--list] [--json] [SRC_DIR]
"""

import json
import os
import re
import sys
from collections import defaultdict



def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for line in text.split("\n"):
        # Drop `//` comments (and doc comments) but keep string contents
        # that happen to hold `//` out of the way by a simple scan.
        in_str = False
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if c == '"' and (i == 0 or line[i - 1] != "\\"):
                in_str = not in_str
            elif not in_str and line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def is_test_file(rel):
    parts = rel.split(os.sep)
    return parts[-1] == "tests.rs" or "tests" in parts[:-1]


def module_of(rel):
    """`inbox/pg/mod.rs` -> ('inbox', 'pg'); `ctx.rs` -> ('ctx',); lib.rs -> ()."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    if parts == ["lib"]:
        parts = []
    return tuple(parts)


def split_group(body):
    """Split the inside of `{...}` at top-level commas."""
    items, depth, cur = [], 0, ""
    for c in body:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        items.append(cur.strip())
    return items


def expand_use_tree(prefix, tree):
    """`a::{b, c::{d}}` under prefix -> [prefix+a::b, prefix+a::c::d]."""
    tree = tree.strip()
    m = re.match(r"^((?:[A-Za-z_][A-Za-z0-9_]*::)*)\{(.*)\}$", tree, re.S)
    if m:
        head = prefix + [p for p in m.group(1).split("::") if p]
        paths = []
        for item in split_group(m.group(2)):
            paths += expand_use_tree(head, item)
        return paths
    tree = re.split(r"\s+as\s+", tree)[0]
    segs = [p for p in tree.split("::") if p and p not in ("self", "*")]
    return [prefix + segs]


USE_RE = re.compile(r"\buse\s+([^;]+);", re.S)
INLINE_RE = re.compile(
    r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:::super)*)::((?:[A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)"
)


def paths_in(text):
    """Every path the file uses, as (segment list, line number).

    Segment lists keep their first word (`crate`, `super`, `self` or a child
    module's name) so they can be resolved against the file's own module.
    """
    found = []
    spans = []
    for m in USE_RE.finditer(text):
        spans.append((m.start(), m.end()))
        line = text.count("\n", 0, m.start()) + 1
        tree = re.sub(r"\s+", " ", m.group(1)).strip()
        tree = re.sub(r"^::", "", tree)
        for p in expand_use_tree([], tree):
            if p:
                found.append((p, line))
    for m in INLINE_RE.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        line = text.count("\n", 0, m.start()) + 1
        found.append((m.group(1).split("::") + m.group(2).split("::"), line))
    return found


def load(src, no_tests):
    files = {}
    for root, dirs, names in os.walk(src):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".rs"):
                continue
            full = os.path.join(root, name)
            rel = os.path.relpath(full, src)
            if rel.startswith("bin" + os.sep):
                continue  # binaries are their own crates' roots
            if no_tests and is_test_file(rel):
                continue
            text = open(full, encoding="utf-8").read()
            if no_tests:
                cut = text.find("#[cfg(test)]")
                if cut >= 0:
                    text = text[:cut]
            files[rel] = strip_comments(text)
    return files


def bin_modules(src):
    """Files a binary in `bin/` takes in with `#[path]`: their paths are the binary's."""
    out = set()
    bins = os.path.join(src, "bin")
    for name in sorted(os.listdir(bins)) if os.path.isdir(bins) else []:
        text = open(os.path.join(bins, name), encoding="utf-8").read()
        for m in re.finditer(r'#\[path\s*=\s*"([^"]+)"\]', text):
            out.add(os.path.normpath(os.path.join("bin", m.group(1))))
    return out


def lib_reexports(files):
    """`pub use ctx::{Ctx, ...}` in lib.rs: name -> module path."""
    out = {}
    text = files.get("lib.rs", "")
    for m in re.finditer(r"pub\s+use\s+([^;]+);", text):
        for p in expand_use_tree([], m.group(1)):
            if p:
                out[p[-1]] = tuple(p[:-1])
    return out


def resolve(segs, modules):
    """The deepest module (a file of ours) the path names."""
    segs = list(segs)
    best = ()
    for n in range(1, len(segs) + 1):
        if tuple(segs[:n]) in modules:
            best = tuple(segs[:n])
    return best


def sccs(nodes, edges):
    """Tarjan, iterative. Returns a list of components (lists of nodes)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
    return comps


def eades_order(nodes, edges):
    """Greedy Eades–Lin–Smyth order: arrows from later to earlier run down."""
    out_e = {n: set(edges.get(n, ())) - {n} for n in nodes}
    in_e = {n: set() for n in nodes}
    for a, bs in out_e.items():
        for b in bs:
            in_e[b].add(a)
    left = set(nodes)
    head, tail = [], []
    while left:
        changed = True
        while changed:
            changed = False
            for n in sorted(left):
                if not (out_e[n] & left):  # a sink: it imports nothing left
                    tail.insert(0, n)
                    left.discard(n)
                    changed = True
            for n in sorted(left):
                if not (in_e[n] & left):  # a source: nothing left imports it
                    head.append(n)
                    left.discard(n)
                    changed = True
        if left:
            n = max(sorted(left), key=lambda x: len(out_e[x] & left) - len(in_e[x] & left))
            head.append(n)
            left.discard(n)
    # head + tail runs from the top (importers) to the ground (imported).
    return head + tail


def declared_floors(src):
    """The floor table of `tests/layers.rs`: [(name, [entries])], lowest first."""
    path = os.path.join(src, "..", "tests", "layers.rs")
    if not os.path.exists(path):
        return []
    text = open(path, encoding="utf-8").read()
    start = text.find("const FLOORS")
    end = text.find("];", start)
    table = text[start:end]
    floors = []
    for m in re.finditer(r'\(\s*"([^"]+)",\s*&\[(.*?)\],?\s*\)', table, re.S):
        floors.append((m.group(1), re.findall(r'"([^"]+)"', m.group(2))))
    return floors


def floor_of(module, floors):
    """(floor index, entry) of a module path like `inbox/wakes`, longest entry first."""
    best = None
    for i, (_, entries) in enumerate(floors):
        for entry in entries:
            e = entry[:-3] if entry.endswith(".rs") else entry
            if module == e or module.startswith(e + "/"):
                if best is None or len(e) > len(best[1]):
                    best = (i, e)
    return best


def measure(src, no_tests, crate_only=False):
    files = load(src, no_tests)
    modules = {module_of(rel): rel for rel in files}
    reexports = lib_reexports(files)
    file_edges = defaultdict(set)
    via_lib = []
    bin_only = bin_modules(src)
    for rel, text in files.items():
        if rel in bin_only:
            continue  # its `crate::` is the binary's root, not the library's
        here = module_of(rel)
        for segs, line in paths_in(text):
            if segs[0] == "crate":
                segs = segs[1:]
                if not segs:
                    continue
                target = resolve(segs, modules)
                if target == () and rel != "lib.rs":
                    via_lib.append((rel, line, "::".join(segs)))
                    target = reexports.get(segs[0], ())
            elif crate_only:
                continue
            else:
                relative = segs[0] in ("super", "self")
                base = list(here)
                while segs and segs[0] in ("super", "self"):
                    if segs[0] == "super":
                        base = base[:-1]
                    segs = segs[1:]
                if not relative and tuple(base + segs[:1]) not in modules:
                    continue  # another crate's path, not a child module
                target = resolve(base + segs, modules) or tuple(base)
            dest = modules.get(target)
            if dest and dest != rel and target != ():
                file_edges[rel].add(dest)
    nodes = sorted(f for f in files if f != "lib.rs")
    comps = sccs(nodes, file_edges)
    biggest = max(comps, key=len) if comps else []

    def room(rel):
        return module_of(rel)[0] if module_of(rel) else "lib"

    room_edges = defaultdict(set)
    for a, bs in file_edges.items():
        for b in bs:
            if room(a) != room(b) and a != "lib.rs":
                room_edges[room(a)].add(room(b))
    rooms = sorted({room(f) for f in nodes})
    order = eades_order(rooms, room_edges)
    pos = {r: i for i, r in enumerate(order)}
    arrows = [(a, b) for a in room_edges for b in room_edges[a]]
    up = sorted((a, b) for a, b in arrows if pos[b] < pos[a])
    # Floors: longest path to the ground over the arrows that run down.
    floor = {}
    for r in reversed(order):
        below = [floor[b] for b in room_edges.get(r, ()) if pos[b] > pos[r]]
        floor[r] = 1 + max(below, default=0)
    room_comps = [c for c in sccs(rooms, room_edges) if len(c) > 1]
    floors = declared_floors(src)
    up_declared = set()
    for a, bs in file_edges.items():
        for b in bs:
            fa = floor_of("/".join(module_of(a)), floors)
            fb = floor_of("/".join(module_of(b)), floors)
            if fa and fb and fb[0] > fa[0]:
                up_declared.add((fa[1], fb[1], a, b))
    return {
        "declared_floors": len(floors),
        "imports_up_declared": len(up_declared),
        "folder_arrows_up_declared": len({(x, y) for x, y, _, _ in up_declared}),
        "up_declared": sorted(f"{a} -> {b}" for _, _, a, b in up_declared),
        "files": len(nodes),
        "largest_file_circle": len(biggest),
        "file_circle": sorted(biggest) if len(biggest) > 1 else [],
        "circles_over_2": sum(1 for c in comps if len(c) > 2),
        "rooms": len(rooms),
        "floors": max(floor.values(), default=0),
        "arrows": len(arrows),
        "arrows_back_up": len(up),
        "back_up": [f"{a} -> {b}" for a, b in up],
        "room_circles": [sorted(c) for c in room_comps],
        "through_lib_rs": len({f for f, _, _ in via_lib}),
        "through_lib_rs_at": [f"{f}:{l} crate::{p}" for f, l, p in via_lib],
    }


def main(argv):
    no_tests = "--no-tests" in argv
    listing = "--list" in argv
    as_json = "--json" in argv
    rest = [a for a in argv if not a.startswith("--")]
    here = os.path.dirname(os.path.abspath(__file__))
    src = rest[0] if rest else os.path.join(here, "..", "crates", "colmena-core", "src")
    crate_only = "--crate-only" in argv
    m = measure(src, no_tests, crate_only)
    if as_json:
        print(json.dumps(m, indent=2))
        return 0
    kind = "without test code" if no_tests else "with test code"
    kind += ", crate:: paths only" if crate_only else ", crate::, super:: and self:: paths"
    print(f"colmena-core/src ({kind}): {m['files']} files, {m['rooms']} rooms")
    print(f"  largest import circle: {m['largest_file_circle']} files"
          f" ({m['circles_over_2']} circles of more than 2 files)")
    print(f"  folder arrows: {m['arrows']}, floors: {m['floors']},"
          f" arrows back up: {m['arrows_back_up']}")
    print(f"  files importing through lib.rs: {m['through_lib_rs']}")
    if m["declared_floors"]:
        print(f"  against the {m['declared_floors']} floors of tests/layers.rs:"
              f" {m['imports_up_declared']} file imports run up,"
              f" {m['folder_arrows_up_declared']} folder arrows")
    if listing:
        print("circle:", *m["file_circle"], sep="\n  ")
        print("arrows back up:", *m["back_up"], sep="\n  ")
        print("through lib.rs:", *m["through_lib_rs_at"], sep="\n  ")
        print("running up the declared floors:", *m["up_declared"], sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
