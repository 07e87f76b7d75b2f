#!/usr/bin/env python3
"""Structural rules of the core, checked on its sources.

  one-door CORE_DIR  fails when a file of the core other than backend_call.c/.h calls a backend
                     operation (a member of struct hf_backend_ops) itself.
  no-cycles CORE_DIR [--known A,B]...
                     fails when the core's include graph has a cycle, and prints it; a cycle
                     through exactly the nodes of a --known list is printed but does not fail.

In the include graph x.h and x.c are one node. A header whose functions are defined in files of
other names (registry.h: file.c and buffer.c) is one node with those files, so "a.c includes b.h
whose implementation includes a.h" is a cycle however the files are named.
"""
import os
import re
import sys

# Every function member of struct hf_backend_ops (include/hipfile/backend.h).
BACKEND_OPS = ("init", "fini", "probe", "file_register", "file_deregister", "buf_register",
               "buf_deregister", "score", "read", "write", "submit_many", "stream_prepare")
DOOR_FILES = ("backend_call.c", "backend_call.h")

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
# A call through a member named like a backend op, whatever table holds it: b->ops->read(...),
# b->complete.read (...), (*ops).probe(...). No other table of the core has members of these names.
OP_CALL = re.compile(r"(?:->|\.)\s*(" + "|".join(BACKEND_OPS) + r")\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
DECLARED = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(hf_\w+)\s*\([^;{]*\)\s*(?:__attribute__[^;]*)?;",
                      re.M)
DEFINED = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(hf_\w+)\s*\([^;{]*\)\s*\{", re.M)


def blank(m):
    """Keeps a match's line breaks, so line numbers stay right."""
    return " " + "\n" * m.group(0).count("\n")


def uncomment(text):
    return COMMENT.sub(blank, text)


def strip(text):
    return STRING.sub(blank, uncomment(text))


def sources(core):
    """Every .c and .h under the core, as paths relative to it."""
    found = []
    for top, _, files in os.walk(core):
        for f in files:
            if f.endswith((".c", ".h")):
                found.append(os.path.relpath(os.path.join(top, f), core))
    return sorted(found)


def read(core, name):
    with open(os.path.join(core, name), encoding="utf-8") as f:
        return f.read()


def one_door(core):
    bad = []
    for name in sources(core):
        if os.path.basename(name) in DOOR_FILES:
            continue
        text = strip(read(core, name))
        for m in OP_CALL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            bad.append("%s:%d: calls backend op %s outside backend_call.c" % (name, line,
                                                                             m.group(1)))
    for b in bad:
        print(b)
    if bad:
        print("every call of a backend op goes through core/backend_call.h (hf_call_*)")
    return 1 if bad else 0


def nodes_of(core):
    """Map every file of the core to its node: its path without the extension."""
    names = sources(core)
    texts = {n: uncomment(read(core, n)) for n in names}
    node = {n: n[:-2] for n in names}
    # A .c file without a header of its own joins the header whose functions it defines.
    declared = {}
    for n in names:
        if n.endswith(".h"):
            for fn in DECLARED.findall(texts[n]):
                declared.setdefault(fn, n[:-2])
    for n in names:
        if n.endswith(".c") and n[:-2] + ".h" not in texts:
            owners = sorted({declared[fn] for fn in DEFINED.findall(texts[n]) if fn in declared})
            if len(owners) == 1:
                node[n] = owners[0]
    return names, texts, node


def resolve(inc, including, node):
    """The core file an #include "..." names: beside the includer, from the core's root, or by
    its file name when that is unique."""
    for candidate in (os.path.normpath(os.path.join(os.path.dirname(including), inc)),
                      os.path.normpath(inc)):
        if candidate in node:
            return candidate
    same = [n for n in node if os.path.basename(n) == os.path.basename(inc)]
    return same[0] if len(same) == 1 else None


def include_graph(core):
    names, texts, node = nodes_of(core)
    edges = {v: set() for v in node.values()}
    for n in names:
        for inc in INCLUDE.findall(texts[n]):
            target = resolve(inc, n, node)
            if target is not None and node[target] != node[n]:
                edges[node[n]].add(node[target])
    members = {}
    for n in names:
        members.setdefault(node[n], []).append(n)
    return edges, members


def components(edges):
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def cycle_in(part, edges):
    """One cycle through the first node of a component, as a path back to it."""
    inside = set(part)
    start = part[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & inside):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return part


def no_cycles(core, known=()):
    """@p known: cycles (sets of nodes) reported but not failed, each waiting for its owner's fix."""
    edges, members = include_graph(core)
    failed = 0
    for part in components(edges):
        is_known = set(part) in [set(k) for k in known]
        print("%sinclude cycle in the core: %s" % ("known " if is_known else "",
                                                   " -> ".join(cycle_in(part, edges))))
        for v in part:
            print("  %s = %s" % (v, " + ".join(sorted(members[v]))))
        failed += 0 if is_known else 1
    return 1 if failed else 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("one-door", "no-cycles") or (
            argv[1] == "one-door" and len(argv) != 3):
        print("usage: core_structure.py one-door CORE_DIR\n"
              "       core_structure.py no-cycles CORE_DIR [--known NODE,NODE...]...",
              file=sys.stderr)
        return 2
    if argv[1] == "one-door":
        return one_door(argv[2])
    known = [a.split(",") for flag, a in zip(argv[3::2], argv[4::2]) if flag == "--known"]
    return no_cycles(argv[2], known)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
