# Sphinx configuration of the hipfile documentation. Built by the docs.sphinx_html test and by
#   sphinx-build -W -b html docs <build>/docs/html
# Every code block comes from a file a test compiles, runs or loads; see contributing.rst.
import os
import re
import shutil
import subprocess
import sys

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.errors import ConfigError
from sphinx.util import logging

logger = logging.getLogger(__name__)

project = "hipfile"
author = "the hipfile authors"
copyright = "the hipfile authors"

_here = os.path.dirname(os.path.abspath(__file__))


def _project_version():
    with open(os.path.join(_here, "..", "include", "hipfile.h"), encoding="utf-8") as header:
        parts = dict(re.findall(r"^#define HIPFILE_VERSION_(MAJOR|MINOR|PATCH) +(\d+)", header.read(), re.M))
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


version = release = _project_version()

# The Python API reference (python/api.rst) is generated from the docstrings of the package in
# python/, imported from the source tree: importing it needs only the standard library (the C
# library is loaded on first use, which building the documentation never makes).
sys.path.insert(0, os.path.join(_here, "..", "python"))
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
autodoc_member_order = "bysource"

# The C API reference (reference/api.rst) is generated from the doc comments of
# include/hipfile.h: Doxygen reads them into XML (docs/Doxyfile), Breathe renders each entry.
# Without either tool the pages still build, each generated entry replaced by a line that says so;
# with HIPFILE_DOCS_API=required in the environment (docs/CMakeLists.txt sets it when it found both)
# a missing tool is an error instead. HIPFILE_DOCS_DOXYGEN names the doxygen to run.
API_DIRECTIVES = ("doxygenfunction", "doxygenstruct", "doxygenenum", "doxygentypedef",
                  "doxygendefine")


def _api_tools():
    """The doxygen program, or None and why the reference cannot be generated."""
    try:
        import breathe  # noqa: F401
    except ImportError:
        return None, ("Breathe is not installed for the Python that runs Sphinx "
                      "(Debian: python3-breathe)")
    doxygen = os.environ.get("HIPFILE_DOCS_DOXYGEN") or shutil.which("doxygen")
    if not doxygen:
        return None, "doxygen was not found (Debian: doxygen)"
    return doxygen, None


_doxygen, _api_missing = _api_tools()
if _doxygen:
    extensions.append("breathe")
    breathe_projects = {}  # the XML directory, set once the build directory is known
    breathe_default_project = "hipfile"
    breathe_domain_by_extension = {"h": "c"}
    breathe_default_members = ("members",)
    breathe_show_define_initializer = True
    breathe_show_enumvalue_initializer = True
    breathe_show_include = False

source_suffix = {".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["snippets", "figures", "checks", "_build"]
highlight_language = "none"
html_theme = "alabaster"
html_title = "hipfile " + release
html_static_path = ["_static"]
html_css_files = ["hipfile.css"]
# Wide enough for a function signature, a four-column table and a 100-column code line.
html_theme_options = {"page_width": "1140px"}
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


def _generate_api_xml(app):
    """Run Doxygen into the doctree directory; each line it prints is a warning, so -W fails."""
    output = os.path.join(app.doctreedir, "doxygen")
    os.makedirs(output, exist_ok=True)
    with open(os.path.join(_here, "Doxyfile"), encoding="utf-8") as doxyfile:
        config = doxyfile.read() + '\nOUTPUT_DIRECTORY = "%s"\n' % output
    run = subprocess.run([_doxygen, "-"], input=config, cwd=_here, capture_output=True, text=True)
    for line in (run.stdout + run.stderr).splitlines():
        if line.strip():
            logger.warning("doxygen: %s", line)
    if run.returncode != 0:
        logger.warning("doxygen exited with status %d; the C API reference is incomplete",
                       run.returncode)
    app.config.breathe_projects = {"hipfile": os.path.join(output, "xml")}


class _AnyOption(dict):
    """Accepts the options of Breathe's directives (:members:, :project:) without knowing them."""

    def __contains__(self, name):
        return True

    def __getitem__(self, name):
        return directives.unchanged


class _ApiEntryNotGenerated(Directive):
    """Stands in for a Breathe directive when the reference cannot be generated."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOption()

    def run(self):
        result = []
        document = self.state.document
        if not getattr(document, "hf_api_note_given", False):
            document.hf_api_note_given = True
            text = ("The entries of this page are generated from the doc comments of "
                    "include/hipfile.h, which this build could not do: %s. Each entry only names "
                    "what it documents; read the header, or build with the tool installed."
                    % _api_missing)
            result.append(nodes.note("", nodes.paragraph(text=text)))
        name = nodes.literal(text=self.arguments[0])
        result.append(nodes.paragraph("", "", name, nodes.Text(" (entry not generated)")))
        return result


def setup(app):
    app.connect("source-read", _drop_pending_toctree_entries)
    app.connect("missing-reference", _pending_reference)
    if _doxygen:
        app.connect("builder-inited", _generate_api_xml)
        return
    if os.environ.get("HIPFILE_DOCS_API") == "required":
        raise ConfigError("the C API reference cannot be generated: " + _api_missing)
    logger.info("C API reference not generated: %s", _api_missing)
    for name in API_DIRECTIVES:
        app.add_directive(name, _ApiEntryNotGenerated)
