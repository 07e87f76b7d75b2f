#!/usr/bin/env python3
"""Load a configuration file shown in the documentation through the library's own parser.

Usage: check_config_snippet.py HIPFILE_CHECK CONFIG_FILE PLUGIN_DIR

Runs hipfile-check --json with HIPFILE_CONFIG=CONFIG_FILE (plugins from PLUGIN_DIR, so a
plugins.directory in the snippet need not exist here) and fails unless the file loaded and the
library logged nothing about it: a typo in a key, a value out of range or a wrong type all fail.
A snippet may configure a plugin PLUGIN_DIR does not hold (the one a how-to builds): the lines
saying that no manifest there has its name are expected, and only those are let through.
"""
import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    check, config, plugin_dir = argv[1:]
    env = dict(os.environ, HIPFILE_CONFIG=config, HIPFILE_PLUGIN_DIR=plugin_dir)
    run = subprocess.run([check, "--json", "--verbose"], env=env, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        print("hipfile-check exited %d:\n%s%s" % (run.returncode, run.stdout, run.stderr))
        return 1
    report = json.loads(run.stdout)
    problems = []
    if not report["config"]["loaded"] or report["config"].get("error"):
        problems.append("does not load: %s" % report["config"].get("error"))
    name = os.path.basename(config)
    for message in report.get("messages") or []:
        text = message if isinstance(message, str) else json.dumps(message)
        if "warn:" in text and "has that name" in text:
            continue
        if name in text and ("warn" in text or "error" in text):
            problems.append("logged: " + text)
    for problem in problems:
        print("%s: %s" % (config, problem))
    if problems:
        return 1
    print("%s: loaded by the library's parser without a warning" % config)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
