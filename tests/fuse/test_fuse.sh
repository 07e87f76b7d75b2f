#!/usr/bin/env bash
# Files on a FUSE mount through hipfile, against a real mount:
#   test_fuse.sh GTEST_EXE CHECK_EXE PLUGIN_DIR
# mounts a scratch directory with bindfs (Debian package bindfs, which .ci/run installs), runs the
# FUSE suite (GTEST_EXE) on it and asks hipfile-check (CHECK_EXE) to explain a file there, then
# unmounts, whatever happened. Exits 77 (skipped) only where FUSE cannot mount here: no bindfs, no
# /dev/fuse, or a mount the kernel refuses; HIPFILE_REQUIRE_FUSE=1 (.ci/run sets it) turns each of
# those into a failure.
set -u

if [ $# -ne 3 ]; then
    echo "usage: $0 GTEST_EXE CHECK_EXE PLUGIN_DIR" >&2
    exit 2
fi
GTEST_EXE=$1
CHECK_EXE=$2
PLUGIN_DIR=$3

cannot_mount() {
    if [ "${HIPFILE_REQUIRE_FUSE:-0}" = 1 ]; then
        echo "FAIL: $* (HIPFILE_REQUIRE_FUSE=1)" >&2
        exit 1
    fi
    echo "SKIP: $*" >&2
    exit 77
}

command -v bindfs >/dev/null 2>&1 || cannot_mount "bindfs is not installed (Debian: apt-get install bindfs)"
[ -c /dev/fuse ] || cannot_mount "/dev/fuse is missing: this kernel or container offers no FUSE"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-fuse.XXXXXX") || exit 1
mkdir "$WORK/backing" "$WORK/mnt" || exit 1
MOUNTED=0
cleanup() {
    if [ "$MOUNTED" = 1 ]; then
        fusermount -u "$WORK/mnt" 2>/dev/null || umount "$WORK/mnt" 2>/dev/null ||
            umount -l "$WORK/mnt" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! bindfs "$WORK/backing" "$WORK/mnt" 2>"$WORK/mount.err"; then
    cannot_mount "bindfs could not mount: $(cat "$WORK/mount.err")"
fi
MOUNTED=1
grep -q " $WORK/mnt fuse" /proc/mounts || {
    echo "FAIL: bindfs returned, but $WORK/mnt is not a FUSE mount" >&2
    exit 1
}

fail() {
    echo "FAIL: $*" >&2
    [ -f "$WORK/out" ] && cat "$WORK/out" >&2
    exit 1
}

HIPFILE_TEST_FUSE_MOUNT=$WORK/mnt HIPFILE_TEST_FUSE_BACKING=$WORK/backing "$GTEST_EXE" ||
    fail "the FUSE suite failed"

# What a user sees: the file system named, the fallback chosen, the fastpath's reason. The
# fastpath's coherent engine is off, as on a discrete GPU (test_fuse_files.cc says why).
head -c 1048576 /dev/urandom >"$WORK/backing/explained" || fail "cannot write the backing file"
printf 'plugins = {\n  directory = "%s";\n};\nfastpath = {\n  coherent = false;\n};\n' \
    "$PLUGIN_DIR" >"$WORK/hipfile.conf"
HIPFILE_CONFIG=$WORK/hipfile.conf "$CHECK_EXE" --explain "$WORK/mnt/explained" --size 64K >"$WORK/out" 2>&1 ||
    fail "hipfile-check --explain exited $?"
grep -q "file system: *fuse" "$WORK/out" || fail "hipfile-check does not name the file system fuse"
grep -q "would be served by: *fallback" "$WORK/out" || fail "hipfile-check does not pick the fallback"
grep -q "refused by fastpath: no engine for GPU 0" "$WORK/out" ||
    fail "hipfile-check does not give the fastpath's reason"
echo "FUSE files: all checks passed on $WORK/mnt"
