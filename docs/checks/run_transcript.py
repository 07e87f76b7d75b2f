#!/usr/bin/env python3
"""Run a documentation transcript and check that its output still matches.

Usage: run_transcript.py TRANSCRIPT SOURCE_DIR BUILD_DIR WORK_DIR

A transcript (docs/snippets/*.console) is what a reader types and sees: lines starting with "$ "
are commands (a line ending in a backslash continues on the next, which starts with "> "), and
the lines up to the next command are the output expected of it, standard output and standard
error together. In expected output a line "..." stands for any number of lines and "..." inside
a line for any text. Every command must exit with status 0.

The commands run, in order, in one bash shell whose working directory WORK_DIR (emptied first)
looks like the top of a checked-out tree that has been built: a copy of SOURCE_DIR (without .git
and build directories), with "build" linked to BUILD_DIR. HOME is WORK_DIR/home, and the HIPFILE_*
variables of the caller's environment are cleared so the transcript sets what it needs.
"""
import os
import re
import shutil
import subprocess
import sys

MARKER = "__hipfile_transcript_status__"


def parse(path):
    steps = []  # (command, [expected lines])
    with open(path, encoding="utf-8") as transcript:
        lines = transcript.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if steps:
                steps[-1][1].append(line)
                i += 1
                continue
            raise SystemExit("%s:%d: output before the first command" % (path, i + 1))
        command = [line[2:]]
        while command[-1].endswith("\\"):
            i += 1
            if i >= len(lines) or not lines[i].startswith("> "):
                raise SystemExit("%s:%d: continued command without a '> ' line" % (path, i + 1))
            command.append(lines[i][2:])
        steps.append(("\n".join(command), []))
        i += 1
    return steps


def line_matches(pattern, text):
    parts = [re.escape(p) for p in pattern.split("...")]
    return re.fullmatch(".*".join(parts), text, re.S) is not None


def lines_match(expected, actual):
    memo = {}

    def match(e, a):
        key = (e, a)
        if key in memo:
            return memo[key]
        if e == len(expected):
            result = a == len(actual)
        elif expected[e] == "...":
            result = any(match(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            result = a < len(actual) and line_matches(expected[e], actual[a]) and match(e + 1, a + 1)
        memo[key] = result
        return result

    return match(0, 0)


def prepare(work_dir, source_dir, build_dir):
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(os.path.join(work_dir, "home"))
    # Copies, not links, so nothing a transcript writes can reach the source tree.
    for entry in os.listdir(source_dir):
        if entry == ".git" or entry == "build" or entry.startswith("build-"):
            continue
        source = os.path.join(source_dir, entry)
        if os.path.isdir(source) and not os.path.islink(source):
            shutil.copytree(source, os.path.join(work_dir, entry), symlinks=True,
                            ignore=shutil.ignore_patterns(".git", "build", "build-*"))
        else:
            shutil.copy2(source, os.path.join(work_dir, entry), follow_symlinks=False)
    os.symlink(build_dir, os.path.join(work_dir, "build"))


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    transcript, source_dir, build_dir, work_dir = (os.path.abspath(a) for a in argv[1:])
    steps = parse(transcript)
    prepare(work_dir, source_dir, build_dir)
    script = ["cd %s || exit 99" % subprocess.list2cmdline([work_dir])]
    for command, _ in steps:
        script.append(command)
        script.append('printf "\\n%s %%d\\n" "$?"' % MARKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIPFILE_")}
    env["HOME"] = os.path.join(work_dir, "home")
    env["LC_ALL"] = "C"
    run = subprocess.run(["bash", "--noprofile", "--norc", "-c", "\n".join(script) + "\n"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env, cwd=work_dir, text=True, errors="replace")
    chunks = re.split(r"\n?\n%s (\d+)\n" % MARKER, run.stdout)
    failures = 0
    for index, (command, expected) in enumerate(steps):
        if 2 * index + 1 >= len(chunks):
            print("FAIL: the shell stopped before '%s'" % command)
            failures += 1
            break
        output, status = chunks[2 * index], int(chunks[2 * index + 1])
        actual = output.split("\n") if output else []
        if status != 0:
            print("FAIL: '%s' exited with status %d; output:\n%s" % (command, status, output))
            failures += 1
        elif not lines_match(expected, actual):
            print("FAIL: output of '%s' no longer matches the transcript.\nexpected:\n%s\nactual:\n%s"
                  % (command, "\n".join(expected), output))
            failures += 1
        else:
            print("ok: %s" % command.split("\n")[0])
    if failures:
        print("%s: %d of %d commands failed" % (os.path.basename(transcript), failures, len(steps)))
        return 1
    print("%s: all %d commands ran and matched" % (os.path.basename(transcript), len(steps)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
