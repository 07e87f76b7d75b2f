#!/bin/bash
# The wheel as users install it, offline, with Debian's Python (3.11 on Debian 12): into a plain
# virtual environment and into one that sees the system's packages (python3-numpy, python3-torch),
# run from outside the source tree with no hipfile variable set, so that the package must find
# the library, providers, plugins, config and bundled libraries inside itself; then `pip uninstall`
# must leave nothing behind.
#
# Usage: wheel_install.sh PYTHON WHEEL_DIR WORK_DIR
set -euo pipefail
python=$1 dist=$2 work=$3
wheels=("$dist"/hipfile-*.whl)
[[ -f ${wheels[0]} ]] || { echo "no wheel in $dist"; exit 1; }
wheel=$(realpath "${wheels[0]}")
if ! "$python" -c "import ensurepip" 2>/dev/null; then
    echo "FAIL: $python has no ensurepip (Debian: apt-get install python3-venv)"
    exit 1
fi
unset HIPFILE_LIBRARY HIPFILE_CONFIG HIPFILE_PLUGIN_DIR PYTHONPATH
rm -rf "$work" && mkdir -p "$work"
cd "$work"

check() { # VENV_PYTHON: a write and read back through the installed package, host runtime
    HIPFILE_GPU_RUNTIME=host "$1" - "$work" <<'PY'
import os, sys
import hipfile
here = os.path.dirname(hipfile.__file__)
assert hipfile.library_path().startswith(here), (hipfile.library_path(), here)
maps = open("/proc/self/maps").read()
for name in ("libconfig.so.9", "libhipfile.so.0"):
    lines = [l for l in maps.splitlines() if l.endswith("/" + name)]
    assert lines and all(here in l for l in lines), (name, lines)
path = os.path.join(sys.argv[1], "data.bin")
data = bytearray(os.urandom(3 << 20))
with hipfile.File(path, "w+") as f:
    assert f.write(data) == len(data)
    back = bytearray(len(data))
    assert f.read(back) == len(data) and back == data
print("round trip through", hipfile.library_path())
PY
}

for kind in plain system-site-packages; do
    venv=$work/venv-$kind
    args=()
    [[ $kind == system-site-packages ]] && args=(--system-site-packages)
    "$python" -m venv "${args[@]}" "$venv"
    "$venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"
    check "$venv/bin/python"
    site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
    "$venv/bin/python" -m pip uninstall --quiet --yes hipfile
    left=$(find "$site" -maxdepth 1 -iname 'hipfile*')
    [[ -z $left ]] || { echo "FAIL: pip uninstall left $left"; exit 1; }
    echo "$kind: installed, used and uninstalled cleanly"
done
echo "wheel ok: $(basename "$wheel")"
