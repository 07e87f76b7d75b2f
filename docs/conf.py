# Sphinx configuration of the hipfile documentation. Built by the docs.sphinx_html test and by
#   sphinx-build -W -b html docs <build>/docs/html
# Every code block comes from a file a test compiles, runs or loads; see contributing.rst.
import os
import re

from docutils import nodes

project = "hipfile"
author = "the hipfile authors"
copyright = "the hipfile authors"

_here = os.path.dirname(os.path.abspath(__file__))


def _project_version():
    with open(os.path.join(_here, "..", "include", "hipfile.h"), encoding="utf-8") as header:
        parts = dict(re.findall(r"^#define HIPFILE_VERSION_(MAJOR|MINOR|PATCH) +(\d+)", header.read(), re.M))
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


version = release = _project_version()

extensions = []
source_suffix = {".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["snippets", "figures", "checks", "_build"]
highlight_language = "none"
html_theme = "alabaster"
html_title = "hipfile " + release
html_static_path = []
# A build that warns is a broken build: every warning is an error under -W.
nitpicky = False

# Pages being converted or written elsewhere, which the index already lists. Until each one's .rst
# exists, its toctree entry is dropped and references to it render as plain text, so the rest of
# the documentation builds without warnings. Remove a name once its page exists.
pages_to_come = []


def _missing(docname):
    return not os.path.exists(os.path.join(_here, docname + ".rst"))


def _drop_pending_toctree_entries(app, docname, source):
    if docname != "index":
        return
    absent = {name for name in pages_to_come if _missing(name)}
    kept = [line for line in source[0].splitlines(keepends=True) if line.strip() not in absent]
    source[0] = "".join(kept)


def _pending_reference(app, env, node, contnode):
    if node.get("reftype") != "doc":
        return None
    target = os.path.normpath(os.path.join(os.path.dirname(node.get("refdoc", "")), node["reftarget"]))
    if target in pages_to_come and _missing(target):
        return nodes.literal(text=target + " page")
    return None


def setup(app):
    app.connect("source-read", _drop_pending_toctree_entries)
    app.connect("missing-reference", _pending_reference)
