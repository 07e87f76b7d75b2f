"""Installs the Python package hipfile: ``pip install ./python --no-build-isolation``.

With ``HIPFILE_LIBRARY`` set to the path of libhipfile.so.0 while installing, that path is
recorded in the installed package (hipfile/_paths.py), so programs need no variable to find it.
"""

import os

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithLibraryPath(build_py):
    """build_py that also writes hipfile/_paths.py with the library path given at install time."""

    def run(self):
        super().run()
        library = os.environ.get("HIPFILE_LIBRARY")
        if library:
            target = os.path.join(self.build_lib, "hipfile", "_paths.py")
            with open(target, "w", encoding="utf-8") as paths:
                paths.write("# Written by pip install: HIPFILE_LIBRARY at install time.\n")
                paths.write("LIBRARY = %r\n" % os.path.abspath(library))


setup(cmdclass={"build_py": BuildWithLibraryPath})
