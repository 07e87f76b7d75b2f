#!/usr/bin/env python3
"""Structural rules of the sources, checked on the files themselves.

  one-door CORE_DIR   fails when a file of the core other than backend_call.c/.h calls a backend
                      operation (a member of struct hf_backend_ops) itself.
  wings CORE_DIR WING,WING,...
                      the core's wings, lowest first: fails when a file of the core sits outside
                      them, or a file of one wing depends on a file of a wing above it.
  no-loops DIR...     fails when the files of any one folder under the DIRs depend on each other
                      in a loop.

"Depends" counts two kinds of arrow: an #include "..." of the other file, and a use of a function
that the other file defines (not static), named in the code (comments and strings do not count).

Files are grouped into nodes: x.h and x.c are one node, and a .c file without a header of its own
joins the header that declares its functions (registry.h: file.c and buffer.c), so "a.c includes
b.h whose implementation calls into a.c" is a loop however the files are named.
"""
import os
import re
import sys

# Every function member of struct hf_backend_ops (include/hipfile/backend.h).
BACKEND_OPS = ("init", "fini", "probe", "file_register", "file_deregister", "buf_register",
               "buf_deregister", "score", "read", "write", "submit_many", "stream_prepare",
               "transfer")
DOOR_FILES = ("backend_call.c", "backend_call.h")
SOURCE_ENDINGS = (".c", ".h", ".cc")

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
# A call through a member named like a backend op, whatever table holds it: b->ops->read(...),
# b->complete.read (...), (*ops).probe(...). No other table of the core has members of these names.
OP_CALL = re.compile(r"(?:->|\.)\s*(" + "|".join(BACKEND_OPS) + r")\s*\(")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
DECLARED = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*(?:__attribute__[^;]*)?;",
                      re.M)
DEFINED = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)
WORD = re.compile(r"\b[A-Za-z_]\w*\b")
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def blank(m):
    """Keeps a match's line breaks, so line numbers stay right."""
    return " " + "\n" * m.group(0).count("\n")


def uncomment(text):
    return COMMENT.sub(blank, text)


def strip(text):
    return STRING.sub(blank, uncomment(text))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


class Tree:
    """The sources under one directory: their nodes and the arrows between them."""

    def __init__(self, root, files, search=()):
        self.root = root
        # Directories an include may be written from, besides the tree's own (the core's files
        # include "wing/x.h" from the core's root).
        self.search = [os.path.normpath(d) for d in search]
        self.files = sorted(files)
        self.text = {n: uncomment(read(os.path.join(root, n))) for n in self.files}
        self.code = {n: strip(read(os.path.join(root, n))) for n in self.files}
        self.node = {n: os.path.splitext(n)[0] for n in self.files}
        self.defined_in = {}
        for n in self.files:
            if n.endswith((".c", ".cc")):
                for fn in DEFINED.findall(self.code[n]):
                    if fn not in NOT_NAMES:
                        self.defined_in.setdefault(fn, n)

    def resolve(self, inc, including):
        """The file an #include "..." names: beside the includer, from the tree's root, or from
        one of the search directories."""
        candidates = [os.path.normpath(os.path.join(os.path.dirname(including), inc)),
                      os.path.normpath(inc)]
        for d in self.search:
            candidates.append(os.path.relpath(os.path.normpath(os.path.join(d, inc)), self.root))
        for candidate in candidates:
            if candidate in self.node:
                return candidate
        return None

    def arrows(self, name):
        """(line, target file, how) for each include and function use of file @p name."""
        found = []
        for m in INCLUDE.finditer(self.text[name]):
            target = self.resolve(m.group(1), name)
            if target is not None:
                found.append((line_of(self.text[name], m.start()), target,
                              "includes %s" % m.group(1)))
        seen = set()
        # A header's names are declarations, not uses: its arrows are its includes.
        for m in WORD.finditer("" if name.endswith(".h") else self.code[name]):
            word = m.group(0)
            target = self.defined_in.get(word)
            if target is None or word in seen or self.node[target] == self.node[name]:
                continue
            seen.add(word)
            found.append((line_of(self.code[name], m.start()), target,
                          "uses %s (%s)" % (word, target)))
        return found

    def graph(self, names=None):
        """Arrows between the nodes of @p names (all files by default), as node -> set(node)."""
        names = self.files if names is None else names
        inside = set(names)
        edges = {self.node[n]: set() for n in names}
        for n in names:
            for _, target, _ in self.arrows(n):
                if target in inside and self.node[target] != self.node[n]:
                    edges[self.node[n]].add(self.node[target])
        return edges

    def members(self):
        found = {}
        for n in self.files:
            found.setdefault(self.node[n], []).append(n)
        return found


def sources(root):
    """Every source file under @p root, as paths relative to it."""
    found = []
    for top, _, files in os.walk(root):
        for f in files:
            if f.endswith(SOURCE_ENDINGS):
                found.append(os.path.relpath(os.path.join(top, f), root))
    return sorted(found)


def one_door(core):
    bad = []
    for name in sources(core):
        if os.path.basename(name) in DOOR_FILES:
            continue
        text = strip(read(os.path.join(core, name)))
        for m in OP_CALL.finditer(text):
            bad.append("%s:%d: calls backend op %s outside backend_call.c" % (
                name, line_of(text, m.start()), m.group(1)))
    for b in bad:
        print(b)
    if bad:
        print("every call of a backend op goes through core/host/backend_call.h (hf_call_*)")
    return 1 if bad else 0


def wings(core, order):
    """No file outside the wings, and no arrow from a wing to one above it."""
    rank = {w: i for i, w in enumerate(order)}
    tree = Tree(core, sources(core))
    bad = []
    for name in tree.files:
        wing = name.split(os.sep)[0]
        if wing not in rank or os.sep not in name:
            bad.append("%s: not in a wing (%s)" % (name, ", ".join(order)))
            continue
        for line, target, how in tree.arrows(name):
            up = target.split(os.sep)[0]
            if up in rank and rank[up] > rank[wing]:
                bad.append("%s:%d: %s: %s may not depend on %s, which is above it" % (
                    name, line, how, wing, up))
    for b in bad:
        print(b)
    if bad:
        print("wings, lowest first: %s; each depends only on those below it" % " < ".join(order))
    return 1 if bad else 0


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


def folders(root):
    """Each folder under @p root (itself included) that holds sources, with its own files."""
    for top, dirs, files in os.walk(root):
        dirs.sort()
        own = sorted(f for f in files if f.endswith(SOURCE_ENDINGS))
        if own:
            yield top, own


def no_loops(roots):
    failed = 0
    for root in roots:
        for folder, files in folders(root):
            ancestors, d = [], folder
            while os.path.normpath(d) != os.path.normpath(root):
                d = os.path.dirname(d)
                ancestors.append(d)
            tree = Tree(folder, files, ancestors)
            edges = tree.graph()
            members = tree.members()
            for part in components(edges):
                print("loop in %s: %s" % (folder, " -> ".join(cycle_in(part, edges))))
                for v in part:
                    print("  %s = %s" % (v, " + ".join(sorted(members[v]))))
                failed += 1
    return 1 if failed else 0


USAGE = ("usage: structure.py one-door CORE_DIR\n"
         "       structure.py wings CORE_DIR WING,WING,...\n"
         "       structure.py no-loops DIR...")


def main(argv):
    if len(argv) < 3:
        print(USAGE, file=sys.stderr)
        return 2
    if argv[1] == "one-door" and len(argv) == 3:
        return one_door(argv[2])
    if argv[1] == "wings" and len(argv) == 4:
        return wings(argv[2], argv[3].split(","))
    if argv[1] == "no-loops":
        return no_loops(argv[2:])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
