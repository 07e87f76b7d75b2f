# shellcheck shell=bash
# Steps shared by scripts/demo and scripts/test: Debian packages, configure and build, and finding
# out which GPU (if any) this machine has. Sourced, not run; callers use `set -euo pipefail`.
#
# Knobs (environment):
#   HIPFILE_BUILD_DIR  build directory (default: build/ in the source tree)
#   HIPFILE_JOBS       parallel build jobs (default: number of CPUs)
#   HIPFILE_CMAKE_ARGS extra configure arguments, e.g. "-DHIPFILE_SANITIZE=ON" (with its own
#                      HIPFILE_BUILD_DIR, since they apply when a build directory is configured)
#   HIPFILE_SKIP_APT=1 never call apt-get, even as root with packages missing
#   HIPFILE_PYTHON     the Python that installs and runs the Python package (default: the
#                      system's /usr/bin/python3, which the packages below equip, else python3)
#   HIPFILE_TEST_SERVERS_DIR  where the npm test servers are installed (default:
#                      <build dir>/test-servers, where the build's tests look by default)
#   HIPFILE_TEST_SERVERS=0  do not install them (a machine without the npm registry); the tests
#                      that need them then skip and say so

HF_SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HF_BUILD_DIR=${HIPFILE_BUILD_DIR:-$HF_SOURCE_DIR/build}
HF_JOBS=${HIPFILE_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [[ -n ${HIPFILE_PYTHON:-} ]]; then
    HF_PYTHON=$HIPFILE_PYTHON
elif [[ -x /usr/bin/python3 ]]; then
    HF_PYTHON=/usr/bin/python3
else
    HF_PYTHON=python3
fi

# What building and testing needs on Debian 12 (bookworm); python3 checks the tools' JSON output
# and the documentation's code blocks; python3-sphinx builds the documentation, and doxygen and
# python3-breathe its C API reference from include/hipfile.h; clang-14 and libclang-rt-14-dev
# (which carries libFuzzer) build the fuzz targets (scripts/test-fuzz); python3-pip installs the
# Python package (python/), python3-venv makes the virtual environments the wheel's test installs
# it into, and python3-numpy and python3-pytest run its tests, once with
# python3-torch (CPU PyTorch with gloo: the PyTorch and process-group cases) and once with it
# hidden (tests/python/CMakeLists.txt). libssl-dev
# (OpenSSL's libcrypto: SHA-256 and HMAC) signs S3 requests, libcurl4-openssl-dev carries the
# remote backend's HTTP(S) transfers, nodejs runs the S3-compatible test server (npm below),
# nginx-light is the HTTP server the remote backend's range-read tests start on loopback, and
# bindfs mounts the FUSE file system the FUSE suite reads and writes through (tests/fuse).
HF_PACKAGES=(cmake ninja-build gcc g++ pkg-config libconfig-dev libxml2-dev libgtest-dev
    libamdhip64-dev liburing-dev python3 python3-sphinx doxygen python3-breathe clang-14
    libclang-rt-14-dev python3-pip python3-venv python3-numpy python3-pytest python3-torch libssl-dev
    libcurl4-openssl-dev nodejs nginx-light bindfs)

hf_say() {
    printf '==> %s\n' "$*"
}

hf_die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# Install the packages in HF_PACKAGES that are missing, when that is possible and needed.
hf_install_packages() {
    if [[ ${HIPFILE_SKIP_APT:-0} == 1 ]]; then
        hf_say "packages: not checked (HIPFILE_SKIP_APT=1)"
        return 0
    fi
    if ! command -v dpkg-query >/dev/null 2>&1; then
        hf_say "packages: no dpkg here (not Debian?); install the equivalents of: ${HF_PACKAGES[*]}"
        return 0
    fi
    local missing=() pkg
    for pkg in "${HF_PACKAGES[@]}"; do
        if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) != "install ok installed" ]]; then
            missing+=("$pkg")
        fi
    done
    if ((${#missing[@]} == 0)); then
        hf_say "packages: all ${#HF_PACKAGES[@]} present, skipping apt-get"
        return 0
    fi
    if ((EUID != 0)); then
        hf_say "packages: missing ${missing[*]}, but not root, so skipping apt-get"
        hf_say "  run: sudo apt-get install ${missing[*]}   (the build below may fail without them)"
        return 0
    fi
    hf_say "packages: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update </dev/null || hf_die "apt-get update failed"
    apt-get install -y --no-install-recommends "${missing[@]}" </dev/null ||
        hf_die "apt-get install ${missing[*]} failed"
}

# The servers the remote backend's tests run against, from the npm registry at fixed versions:
# s3rver (an S3-compatible server) and the AWS SDK's SigV4 signer, with which
# tests/remote/servers/s3rver-launch.js checks the signatures s3rver itself does not verify.
HF_TEST_SERVERS_DIR=${HIPFILE_TEST_SERVERS_DIR:-$HF_BUILD_DIR/test-servers}
HF_NPM_PACKAGES=(s3rver@3.7.1 @smithy/signature-v4@5.7.5 @smithy/hash-node@4.5.2)

# Install the npm test servers into HF_TEST_SERVERS_DIR, so that every test command's run is the
# full run; HIPFILE_TEST_SERVERS=0 leaves them out (they need the npm registry), and the tests that
# need them are then skipped and say how to install them. npm comes with Debian's nodejs as the
# separate npm package.
hf_install_test_servers() {
    if [[ ${HIPFILE_TEST_SERVERS:-1} == 0 ]]; then
        hf_say "test servers: not installed (HIPFILE_TEST_SERVERS=0); the S3 tests skip"
        return 0
    fi
    local stamp=$HF_TEST_SERVERS_DIR/installed
    # The tests of every build tree (build-release, build-asan...) use this one installation: the
    # variable is read at test time before the tree's own default.
    export HIPFILE_TEST_SERVERS_DIR=$HF_TEST_SERVERS_DIR
    if [[ -f $stamp && $(<"$stamp") == "${HF_NPM_PACKAGES[*]}" ]]; then
        hf_say "test servers: ${HF_NPM_PACKAGES[*]} already in $HF_TEST_SERVERS_DIR"
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        if ((EUID == 0)) && [[ ${HIPFILE_SKIP_APT:-0} != 1 ]]; then
            hf_say "test servers: installing npm"
            export DEBIAN_FRONTEND=noninteractive
            apt-get update </dev/null || hf_die "apt-get update failed"
            apt-get install -y --no-install-recommends npm </dev/null || hf_die "apt-get install npm failed"
        else
            hf_say "test servers: npm not found; the S3 tests skip (as root: apt-get install npm)"
            return 0
        fi
    fi
    hf_say "test servers: npm install ${HF_NPM_PACKAGES[*]} into $HF_TEST_SERVERS_DIR"
    mkdir -p "$HF_TEST_SERVERS_DIR"
    rm -f "$stamp"
    npm install --prefix "$HF_TEST_SERVERS_DIR" --no-audit --no-fund --omit=dev --no-save \
        "${HF_NPM_PACKAGES[@]}" </dev/null || hf_die "npm install of the test servers failed (HIPFILE_TEST_SERVERS=0 skips the S3 tests instead)"
    printf '%s\n' "${HF_NPM_PACKAGES[*]}" >"$stamp"
}

# Configure (first time only) and build everything into HF_BUILD_DIR.
hf_build() {
    command -v cmake >/dev/null 2>&1 || hf_die "cmake not found (install the packages first)"
    local generator=() extra=()
    # The generator can only be chosen when the build directory is new.
    if [[ ! -f $HF_BUILD_DIR/CMakeCache.txt ]] && command -v ninja >/dev/null 2>&1; then
        generator=(-G Ninja)
    fi
    read -r -a extra <<<"${HIPFILE_CMAKE_ARGS:-}"
    hf_say "configure: $HF_BUILD_DIR ${extra[*]}"
    # The cuFile compatibility library is off in CMake (it is named libcufile.so.0), but CI and
    # these scripts build and test it; warnings are errors here (HIPFILE_WERROR, off in CMake so a
    # user's newer compiler cannot stop a build). HIPFILE_CMAKE_ARGS can still turn either off.
    cmake -S "$HF_SOURCE_DIR" -B "$HF_BUILD_DIR" "${generator[@]}" -DHIPFILE_CUFILE_COMPAT=ON \
        -DHIPFILE_WERROR=ON "${extra[@]}" </dev/null
    hf_say "build: $HF_JOBS jobs"
    cmake --build "$HF_BUILD_DIR" --parallel "$HF_JOBS" </dev/null
    # The wheel (build/dist), unless the build has sanitizers, which no interpreter could load.
    if ! grep -Eq '^HIPFILE_SANITIZE:[A-Z]*=(ON|address|thread)' "$HF_BUILD_DIR/CMakeCache.txt"; then
        cmake --build "$HF_BUILD_DIR" --target wheel </dev/null >/dev/null ||
            hf_die "packing the wheel failed"
        hf_say "wheel: $(ls "$HF_BUILD_DIR"/dist/hipfile-*.whl)"
    fi
}

# Install the Python package (python/) into HF_BUILD_DIR/python-site, offline, recording the path
# of the library just built; programs use it with PYTHONPATH=HF_BUILD_DIR/python-site. The
# system's python3 is left unchanged (Debian marks it externally managed).
hf_install_python_package() {
    local target=$HF_BUILD_DIR/python-site
    if ! "$HF_PYTHON" -m pip --version >/dev/null 2>&1; then
        hf_say "python package: pip not found (Debian: python3-pip), not installed"
        return 0
    fi
    hf_say "python package: installing into $target"
    rm -rf "$target"
    HIPFILE_LIBRARY=$HF_BUILD_DIR/lib/libhipfile.so.0 "$HF_PYTHON" -m pip install --quiet \
        --no-index --no-deps --no-build-isolation --root-user-action=ignore --target "$target" \
        "$HF_SOURCE_DIR/python" </dev/null ||
        hf_die "pip install of the Python package failed"
    rm -rf "$HF_SOURCE_DIR/python/build" "$HF_SOURCE_DIR/python/hipfile.egg-info"
}

# Sets HF_GPU (cuda, hip or none) and HF_GPU_WHY (one line saying how that was decided).
# shellcheck disable=SC2034 # both are read by the scripts that source this file
hf_detect_gpu() {
    if [[ -e /dev/nvidia0 ]] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
        HF_GPU=cuda
        if command -v nvidia-smi >/dev/null 2>&1; then
            HF_GPU_WHY="NVIDIA GPU found ($(nvidia-smi -L 2>/dev/null | head -n 1))"
        else
            HF_GPU_WHY="NVIDIA GPU found (/dev/nvidia0 exists)"
        fi
    elif [[ -e /dev/kfd ]]; then
        HF_GPU=hip
        HF_GPU_WHY="AMD GPU found (/dev/kfd exists)"
    else
        HF_GPU=none
        HF_GPU_WHY="no GPU found (no nvidia-smi, /dev/nvidia0 or /dev/kfd)"
    fi
}
