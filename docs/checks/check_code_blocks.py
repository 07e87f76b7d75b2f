#!/usr/bin/env python3
"""Fail when a code block in the documentation is not backed by something a test runs.

Usage: check_code_blocks.py DOCS_DIR COVERED_LIST SOURCE_DIR

Every code block of every .rst page under DOCS_DIR must be one of:
  * a ``.. literalinclude::`` of a file named in COVERED_LIST (one absolute path a line, written
    by CMake for each file a test compiles, runs or loads), or of a script under scripts/, which
    is what CI runs;
  * a ``.. literalinclude::`` of a figure in DOCS_DIR/figures: a diagram, or output recorded on
    hardware the test suite does not have, which starts with the command that produced it;
  * a ``.. code-block:: console`` whose every command line ("$ ...") runs a script of scripts/.
Anything else (``::`` literal blocks, ``.. code-block::`` with code, ``.. code::``,
``.. parsed-literal::``, doctest blocks) is reported as FILE:LINE: reason, and the exit status is 1.
"""
import os
import re
import sys

DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$")
CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "parsed-literal"}
COMMENT_OR_DIRECTIVE = re.compile(r"^\s*\.\.(\s|$)")


def block_body(lines, start, indent):
    """Lines of the indented body that follows lines[start], with options and blank lines."""
    body = []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
        i += 1
    return body


def check_console(body, source_dir):
    commands = [line.strip()[2:].strip() for line in body if line.strip().startswith("$ ")]
    if not commands:
        return "console block without a '$ ' command line"
    for command in commands:
        words = command.split()
        # Variables set for the one command (VAR=value scripts/x) do not change which script runs.
        while len(words) > 1 and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words.pop(0)
        word = words[0]
        if not word.startswith("scripts/") or not os.access(os.path.join(source_dir, word), os.X_OK):
            return "console command '%s' is neither in a tested transcript nor a script of scripts/" % command
    return None


def check_page(path, docs_dir, covered, source_dir):
    problems = []
    with open(path, encoding="utf-8") as page:
        lines = page.read().split("\n")
    in_comment_indent = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if in_comment_indent is not None:
            if stripped and indent <= in_comment_indent:
                in_comment_indent = None
            else:
                continue
        match = DIRECTIVE.match(line)
        if match:
            name, argument = match.group(2), match.group(3).strip()
            if name == "literalinclude":
                if argument.startswith("/"):
                    target = os.path.join(docs_dir, argument.lstrip("/"))
                else:
                    target = os.path.join(os.path.dirname(path), argument)
                target = os.path.realpath(target)
                scripts = os.path.realpath(os.path.join(source_dir, "scripts")) + os.sep
                figures = os.path.join(docs_dir, "figures") + os.sep
                if target not in covered and not target.startswith((scripts, figures)):
                    problems.append((number, "literalinclude of %s, which no test compiles, runs or loads" % argument))
            elif name in CODE_DIRECTIVES:
                body = block_body(lines, number - 1, indent)
                in_comment_indent = indent  # the block's own lines are checked here, not below
                if name == "code-block" and argument == "console":
                    reason = check_console(body, source_dir)
                    if reason:
                        problems.append((number, reason))
                else:
                    problems.append((number, "'.. %s::' block: include a tested file with literalinclude instead" % name))
            continue
        if COMMENT_OR_DIRECTIVE.match(line):
            # A comment, target or substitution: its indented body is not a literal block.
            in_comment_indent = indent
            continue
        if stripped.startswith(">>>"):
            problems.append((number, "doctest block"))
        elif stripped.endswith("::") and not stripped.startswith(".."):
            problems.append((number, "'::' literal block: include a tested file with literalinclude instead"))
    return problems


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    docs_dir, covered_list, source_dir = (os.path.realpath(a) for a in argv[1:])
    with open(covered_list, encoding="utf-8") as listing:
        covered = {os.path.realpath(line.strip()) for line in listing if line.strip()}
    failures = 0
    pages = 0
    for root, dirs, files in os.walk(docs_dir):
        # checks/ holds the checker's own deliberately uncovered fixture.
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")) and d != "checks")
        for name in sorted(files):
            if not name.endswith(".rst"):
                continue
            pages += 1
            path = os.path.join(root, name)
            for number, reason in check_page(path, docs_dir, covered, source_dir):
                print("%s:%d: %s" % (os.path.relpath(path, docs_dir), number, reason))
                failures += 1
    if failures:
        print("%d code block(s) not covered by a test; see docs/contributing.rst" % failures)
        return 1
    print("%d pages checked, every code block is covered" % pages)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
