#!/usr/bin/env python3
"""Fail when a public name of include/hipfile.h has no entry in the reference pages.

Usage: check_reference_entries.py DOCS_DIR HEADER [--pretend-missing NAME]...

Reads HEADER for its public names and the .rst pages under DOCS_DIR for their entries:
  * every function declared HIPFILE_API needs a ``.. doxygenfunction:: NAME``;
  * every public macro (``#define``, but not the include guard or names starting with "__") a
    ``.. doxygendefine:: NAME``;
  * every struct and enum, by its tag, a ``.. doxygenstruct::`` or ``.. doxygenenum::``, and every
    typedef name a ``.. doxygentypedef::`` (a typedef named like its tag is covered by the tag's);
  * every hipFileOpError_t value an entry in DOCS_DIR/reference/errors.rst, written ``name`` (value)
    with the value the header gives it.
An entry that names nothing in the header is reported too. Each problem is printed as
"PAGE: reason", and the exit status is 1. --pretend-missing drops the entries of NAME before the
check, so that the test suite can show the check fails when an entry is missing.
"""
import os
import re
import sys

DIRECTIVE = re.compile(r"^\s*\.\.\s+doxygen(function|define|struct|enum|typedef)::\s*(\S+)", re.M)
ERROR_ENTRY = re.compile(r"``(hipFile\w+)`` \((\d+)\)")
ERRORS_PAGE = os.path.join("reference", "errors.rst")
API_PAGE = os.path.join("reference", "api.rst")


def header_names(path):
    """The header's public names: functions, macros, tags by kind, typedefs (name -> tag), codes."""
    with open(path, encoding="utf-8") as header:
        text = header.read()
    functions = re.findall(r"^HIPFILE_API\s[^(;]*?\b(\w+)\s*\(", text, re.M)
    guard = re.search(r"^#ifndef\s+(\w+)\s*\n#define\s+\1\b", text, re.M)
    macros = {name for name in re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M)
              if not name.startswith("__") and (guard is None or name != guard.group(1))}
    tags = {}
    typedefs = {}
    for match in re.finditer(r"^typedef\s+(struct|enum)\s+(?:\w+\s+)*?(\w+)\s*\{", text, re.M):
        kind, tag = match.group(1), match.group(2)
        tags[tag] = kind
        depth, i = 0, match.end() - 1
        while True:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        name = re.match(r"\s*(\w+)\s*;", text[i:])
        if name:
            typedefs[name.group(1)] = tag
    for name in re.findall(r"^typedef\s+[^{;(]*?\b(\w+)\s*;", text, re.M):
        typedefs.setdefault(name, None)
    body = re.search(r"typedef enum hipFileOpError\s*\{(.*?)\}", text, re.S)
    codes = {name: int(value)
             for name, value in re.findall(r"\b(hipFile\w+)\s*=\s*(\d+)", body.group(1))}
    return functions, macros, tags, typedefs, codes


def reference_entries(docs_dir):
    """(kind, name) -> first page that has it, from every .rst page outside checks/ and _* dirs."""
    entries = {}
    for root, dirs, files in os.walk(docs_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")) and d != "checks")
        for name in sorted(files):
            if name.endswith(".rst"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as page:
                    for kind, target in DIRECTIVE.findall(page.read()):
                        entries.setdefault((kind, target), os.path.relpath(path, docs_dir))
    return entries


def main(argv):
    args = argv[1:]
    pretend = set()
    while "--pretend-missing" in args:
        at = args.index("--pretend-missing")
        pretend.add(args[at + 1])
        del args[at:at + 2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    docs_dir, header = args
    functions, macros, tags, typedefs, codes = header_names(header)
    entries = {key: page for key, page in reference_entries(docs_dir).items()
               if key[1] not in pretend}
    with open(os.path.join(docs_dir, ERRORS_PAGE), encoding="utf-8") as page:
        documented_codes = [(name, int(value)) for name, value in ERROR_ENTRY.findall(page.read())
                            if name not in pretend]

    problems = []
    for name in functions:
        if ("function", name) not in entries:
            problems.append((API_PAGE, "no entry for function %s: add '.. doxygenfunction:: %s'"
                             % (name, name)))
    for name in sorted(macros):
        if ("define", name) not in entries:
            problems.append((API_PAGE, "no entry for macro %s: add '.. doxygendefine:: %s'"
                             % (name, name)))
    for tag, kind in sorted(tags.items()):
        if (kind, tag) not in entries:
            problems.append((API_PAGE, "no entry for %s %s: add '.. doxygen%s:: %s'"
                             % (kind, tag, kind, tag)))
    for name, tag in sorted(typedefs.items()):
        if ("typedef", name) not in entries and not (name == tag and (tags[tag], tag) in entries):
            problems.append((API_PAGE, "no entry for typedef %s: add '.. doxygentypedef:: %s'"
                             % (name, name)))
    known = {"function": set(functions), "define": macros, "typedef": set(typedefs),
             "struct": {t for t, k in tags.items() if k == "struct"},
             "enum": {t for t, k in tags.items() if k == "enum"}}
    for (kind, name), page in sorted(entries.items()):
        if name not in known[kind]:
            problems.append((page, "'.. doxygen%s:: %s' names no %s of the header" % (kind, name, kind)))

    documented = {}
    for name, value in documented_codes:
        if name not in codes:
            problems.append((ERRORS_PAGE, "``%s`` (%d) is not a hipFileOpError_t value" % (name, value)))
        elif value != codes[name]:
            problems.append((ERRORS_PAGE, "``%s`` is given as %d; the header says %d"
                             % (name, value, codes[name])))
        documented[name] = value
    for name, value in sorted(codes.items(), key=lambda item: item[1]):
        if name not in documented:
            problems.append((ERRORS_PAGE, "no entry for error code %s: add ``%s`` (%d) with its causes "
                             "and what to do" % (name, name, value)))

    for page, reason in problems:
        print("%s: %s" % (page, reason))
    if problems:
        print("%d public name(s) without a reference entry, or entries that do not match %s"
              % (len(problems), os.path.basename(header)))
        return 1
    print("%d functions, %d macros, %d struct and enum tags, %d typedefs and %d error codes each "
          "have a reference entry" % (len(functions), len(macros), len(tags), len(typedefs), len(codes)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
