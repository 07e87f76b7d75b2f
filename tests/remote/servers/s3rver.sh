#!/usr/bin/env bash
# Starts and stops s3rver, an S3-compatible server from the npm registry, for the remote tests
# (ctest fixture remote.s3rver.start / remote.s3rver.stop), through s3rver-launch.js beside this
# script, which puts a front before it that verifies SigV4 signatures and payload hashes (s3rver
# itself does neither).
#
# Usage: s3rver.sh start DIR [MODULES_DIR] | stop DIR
#
# start: runs the server on 127.0.0.1 at a free port with the bucket "hipfile-test", data under
# DIR/data (objects being written wait in DIR/incoming), log in DIR/s3rver.log, and writes
# DIR/endpoint ("http://127.0.0.1:PORT"), DIR/bucket and DIR/s3rver.pid once it listens. stop:
# stops that server and removes DIR/data and DIR/incoming.
#
# It installs nothing: the npm packages come from HIPFILE_TEST_SERVERS_DIR, else MODULES_DIR
# (node_modules inside it), which scripts/lib/common.sh fills under CI (hf_install_test_servers).
# Without them, or without node, start exits 77, which ctest reports as skipped, with the command
# to install them.
set -euo pipefail
SKIP=77
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUCKET=hipfile-test
say() { printf '==> s3rver: %s\n' "$*"; }

(($# == 2 || $# == 3)) || { echo "usage: $0 start DIR [MODULES_DIR] | stop DIR" >&2; exit 2; }
ACTION=$1
DIR=$2
MODULES=${HIPFILE_TEST_SERVERS_DIR:-${3:-}}
PIDFILE=$DIR/s3rver.pid

# Stops the server whose pid DIR/s3rver.pid records, if it is still our launcher.
stop_server() {
    [[ -f $PIDFILE ]] || return 0
    local pid
    pid=$(<"$PIDFILE")
    if [[ $pid =~ ^[0-9]+$ ]] && grep -qs s3rver-launch.js "/proc/$pid/cmdline"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            say "pid $pid did not stop on TERM, killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$PIDFILE"
}

case $ACTION in
stop)
    stop_server
    rm -rf "$DIR/data" "$DIR/incoming" "$DIR/endpoint"
    say "stopped"
    exit 0
    ;;
start) ;;
*) echo "usage: $0 start DIR [MODULES_DIR] | stop DIR" >&2; exit 2 ;;
esac

howto="run scripts/test (it installs them unless HIPFILE_TEST_SERVERS=0), or: npm install --prefix DIR s3rver@3.7.1 @smithy/signature-v4@5.7.5 @smithy/hash-node@4.5.2 and set HIPFILE_TEST_SERVERS_DIR=DIR"
if ! command -v node >/dev/null 2>&1; then
    say "SKIPPED: node is not installed (Debian: apt-get install nodejs); then $howto"
    exit "$SKIP"
fi
if [[ -z $MODULES || ! -d $MODULES/node_modules/s3rver || ! -d $MODULES/node_modules/@smithy/signature-v4 ]]; then
    say "SKIPPED: s3rver is not installed in '$MODULES'; $howto"
    exit "$SKIP"
fi

MODULES=$(cd "$MODULES" && pwd)
mkdir -p "$DIR"
stop_server # one left over from an interrupted run
rm -rf "$DIR/data" "$DIR/incoming" "$DIR/endpoint" "$DIR/bucket"
mkdir -p "$DIR/data"
node "$HERE/s3rver-launch.js" "$MODULES" "$DIR/data" "$BUCKET" "$DIR/endpoint" \
    >"$DIR/s3rver.log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$PIDFILE"
for _ in $(seq 200); do
    [[ -s $DIR/endpoint ]] && break
    if ! kill -0 "$pid" 2>/dev/null; then
        say "the server exited before listening; its log:"
        cat "$DIR/s3rver.log"
        rm -f "$PIDFILE"
        exit 1
    fi
    sleep 0.1
done
if [[ ! -s $DIR/endpoint ]]; then
    say "the server did not listen within 20 s; its log:"
    cat "$DIR/s3rver.log"
    stop_server
    exit 1
fi
echo "$BUCKET" >"$DIR/bucket"
say "listening at $(<"$DIR/endpoint"), bucket $BUCKET, pid $pid"
