#!/usr/bin/env python3
"""Builds the hipfile wheel from an installed tree: the Python package with the library, its GPU
runtime providers, plugins, cuFile library and configuration inside it, plus the shared libraries
named with --bundle that the library needs (those a target machine may lack), so that
``pip install hipfile-*.whl`` works offline, anywhere, with no variable set.

Usage: build_wheel.py --stage PREFIX --libdir REL --confdir REL --conf-from-libdir REL
                      --package DIR --version V --out DIR [--bundle SONAME]...

PREFIX is a ``cmake --install --prefix`` tree; REL paths are relative to it (libdir, the config
directory) or to the library directory (--conf-from-libdir, as the library looks for its config).
Only the standard library is used: no ``wheel`` or ``setuptools`` package is needed.
"""
import argparse
import base64
import hashlib
import os
import platform
import re
import subprocess
import sys
import zipfile

NATIVE = "hipfile/_native"
SONAME = re.compile(r"^lib[\w.+-]+\.so\.\d+$")


def fail(message):
    sys.exit("build_wheel.py: " + message)


def native_files(stage, libdir, confdir, conf_from_libdir):
    """(path in the wheel, file on disk) for the library tree, symlinks resolved."""
    lib = os.path.join(stage, libdir)
    found = []
    for name in sorted(os.listdir(lib)):
        if SONAME.match(name) and os.path.isfile(os.path.join(lib, name)):
            found.append(("%s/lib/%s" % (NATIVE, name), os.path.join(lib, name)))
    # Plugins by their file names, the cuFile library by its soname.
    for sub, keep in (("hipfile/plugins", (".so", ".xml")), ("hipfile/cufile", ())):
        here = os.path.join(lib, sub)
        if not os.path.isdir(here):
            continue
        for name in sorted(os.listdir(here)):
            if name.endswith(keep) if keep else SONAME.match(name):
                found.append(("%s/lib/%s/%s" % (NATIVE, sub, name), os.path.join(here, name)))
    if os.path.isabs(conf_from_libdir):
        fail("the library looks for its config at the absolute %s (a /usr prefix); configure "
             "with another CMAKE_INSTALL_PREFIX to build a wheel" % conf_from_libdir)
    conf_in_wheel = os.path.normpath(os.path.join(NATIVE, "lib", conf_from_libdir, "hipfile.conf"))
    if not conf_in_wheel.startswith(NATIVE + "/"):
        fail("the config directory %s is outside the install tree" % conf_from_libdir)
    conf = os.path.join(stage, confdir, "hipfile.conf")
    if not os.path.isfile(conf):
        fail("no hipfile.conf in %s" % os.path.join(stage, confdir))
    found.append((conf_in_wheel, conf))
    if not any(path.endswith("/libhipfile.so.0") for path, _ in found):
        fail("no libhipfile.so.0 in %s" % lib)
    return found


def bundled(files, sonames):
    """(path in the wheel, file on disk) for each soname in @p sonames that some file needs,
    where the dynamic loader finds it on this machine."""
    wanted = set(sonames)
    where = {}
    for _, path in files:
        if not path.endswith((".so", ".so.0")) and not SONAME.match(os.path.basename(path)):
            continue
        out = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True).stdout
        for line in out.splitlines():
            match = re.match(r"\s*(\S+) => (/\S+)", line)
            if match and match.group(1) in wanted:
                where[match.group(1)] = match.group(2)
    return [("%s/lib/%s" % (NATIVE, name), os.path.realpath(where[name])) for name in sorted(where)]


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for option in ("--stage", "--libdir", "--confdir", "--conf-from-libdir", "--package",
                   "--version", "--out"):
        parser.add_argument(option, required=True)
    parser.add_argument("--bundle", action="append", default=[])
    args = parser.parse_args()

    files = native_files(args.stage, args.libdir, args.confdir, args.conf_from_libdir)
    extra = bundled(files, args.bundle)
    package = []
    for name in sorted(os.listdir(args.package)):
        if name.endswith(".py") and name != "_paths.py":
            package.append(("hipfile/" + name, os.path.join(args.package, name)))
    paths = ("# Written into the wheel: the library and the libraries bundled with it, relative\n"
             "# to this directory. HIPFILE_LIBRARY, when set, takes precedence.\n"
             "LIBRARY = %r\nBUNDLED = %r\n" % ("_native/lib/libhipfile.so.0",
                                                [os.path.basename(p) for p, _ in extra]))

    tag = "py3-none-linux_" + platform.machine()
    dist_info = "hipfile-%s.dist-info" % args.version
    metadata = ("Metadata-Version: 2.1\nName: hipfile\nVersion: %s\n"
                "Summary: Move data between files and GPU memory: the kvikio.CuFile calls over "
                "libhipfile\nRequires-Python: >=3.9\nProvides-Extra: test\n"
                "Requires-Dist: numpy; extra == \"test\"\nRequires-Dist: pytest; extra == \"test\"\n"
                % args.version)
    wheel = "Wheel-Version: 1.0\nGenerator: hipfile build_wheel.py\nRoot-Is-Purelib: false\nTag: %s\n" % tag

    os.makedirs(args.out, exist_ok=True)
    target = os.path.join(args.out, "hipfile-%s-%s.whl" % (args.version, tag))
    records = []
    with zipfile.ZipFile(target + ".part", "w", zipfile.ZIP_DEFLATED) as archive:
        def add(name, data, executable=False):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if executable else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
            records.append(record_line(name, data))

        for name, path in package + files + extra:
            with open(path, "rb") as source:
                add(name, source.read(), executable=".so" in name)
        add("hipfile/_paths.py", paths.encode())
        add(dist_info + "/METADATA", metadata.encode())
        add(dist_info + "/WHEEL", wheel.encode())
        add(dist_info + "/top_level.txt", b"hipfile\n")
        records.append(dist_info + "/RECORD,,")
        info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        archive.writestr(info, "\n".join(records) + "\n")
    os.replace(target + ".part", target)
    print(target)


if __name__ == "__main__":
    main()
