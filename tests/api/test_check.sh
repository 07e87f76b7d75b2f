#!/usr/bin/env bash
# hipfile-check as users run it, one behaviour per case:
#   test_check.sh CASE EXE PLUGIN_DIR FIXTURE_PLUGIN_DIR MANIFEST_DIR
# EXE is hipfile-check, PLUGIN_DIR the build tree's plugins, FIXTURE_PLUGIN_DIR the fixture plugin
# libraries, MANIFEST_DIR the fixture manifests (tests/fixtures/plugins/manifests). ctest sets
# HIPFILE_GPU_RUNTIME=host and HIPFILE_CONFIG to the build tree's config.
set -u

if [ $# -ne 5 ]; then
    echo "usage: $0 CASE EXE PLUGIN_DIR FIXTURE_PLUGIN_DIR MANIFEST_DIR" >&2
    exit 2
fi
CASE=$1
EXE=$2
PLUGIN_DIR=$3
FIXTURE_PLUGIN_DIR=$4
MANIFEST_DIR=$5

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-check-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    if [ -f "$WORK/out" ]; then
        echo "--- output ---" >&2
        cat "$WORK/out" >&2
    fi
    if [ -f "$WORK/err" ]; then
        echo "--- stderr ---" >&2
        cat "$WORK/err" >&2
    fi
    exit 1
}

# run WANT_STATUS ARGS...: runs the tool, output in $WORK/out and $WORK/err.
run() {
    local want=$1
    shift
    "$EXE" "$@" >"$WORK/out" 2>"$WORK/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "hipfile-check $* exited $got, expected $want"
}

expect_out() {
    grep -q -- "$1" "$WORK/out" || fail "output lacks '$1'"
}

expect_err() {
    grep -q -- "$1" "$WORK/err" || fail "stderr lacks '$1'"
}

# json_check EXPRESSION...: each Python expression, over the parsed output `d`, must be true.
json_check() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for check in sys.argv[2:]:
    if not eval(check):
        sys.exit("JSON check failed: " + check)
' "$WORK/out" "$@" || fail "JSON output does not satisfy the checks above"
}

# plugin_dir_config DIR: a config whose plugin directory is DIR; prints the config's path.
plugin_dir_config() {
    printf 'plugins = {\n  directory = "%s";\n};\n' "$1" >"$WORK/hipfile.conf"
    echo "$WORK/hipfile.conf"
}

# fixture_plugin NAME DIR: fixture plugin NAME with a manifest made from a fixture manifest.
fixture_plugin() {
    cp "$FIXTURE_PLUGIN_DIR/libhipfile-$1.so" "$2/" || fail "no fixture plugin $1"
    sed -e "s/fixture-good/$1/" -e "s/libhipfile-not-there.so/libhipfile-$1.so/" \
        "$MANIFEST_DIR/missing-library.xml" >"$2/$1.xml" || fail "cannot write $2/$1.xml"
}

case "$CASE" in
ReportListsFallbackAsLoaded)
    run 0
    expect_out "fallback.xml: fallback .*: loaded"
    expect_out "GPU I/O is usable"
    expect_out "name: *host"
    expect_out "properties.compat_mode"
    expect_out "CPUs: *[0-9][0-9]* ([0-9][0-9]* in the affinity mask"
    expect_out "staging per GPU: *128 MiB, pinned at most "
    ;;
ExplainNamesFallbackAsServer)
    head -c 65536 /dev/zero >"$WORK/data"
    # Unaligned, so the fastpath declines and says why; aligned ones it serves itself.
    run 0 --explain "$WORK/data" --size 65535
    expect_out "1\. fallback: score [0-9][0-9]*"
    expect_out "would be served by: *fallback (score [0-9][0-9]*)"
    expect_out "refused by fastpath: the size is not a multiple of the O_DIRECT block size"
    expect_out "kind: *regular file"
    run 0 --explain "$WORK/data" --write --size 4096 --offset 4097
    expect_out "operation: *write"
    expect_out "would be served by: *fallback"
    run 0 --explain "$WORK/data" --size 64K
    expect_out "would be served by: *fastpath (score [0-9][0-9]*)"
    ;;
JsonOutputParses)
    head -c 4096 /dev/zero >"$WORK/data"
    run 0 --json
    json_check 'd["verdict"]["usable"] is True' \
        '[m["name"] for m in d["plugins"]["manifests"] if m["loaded"]] == ["fallback", "fastpath", "remote"]' \
        'd["runtime"]["name"] == "host" and d["runtime"]["devices"] >= 1' \
        '{"key": "gpu.runtime", "value": "host", "unit": "", "source": "environment HIPFILE_GPU_RUNTIME"}.items() <= next(s for s in d["settings"] if s["key"] == "gpu.runtime").items()' \
        '1 <= d["budgets"]["cpus"] <= d["budgets"]["affinity_cpus"]' \
        '0 < d["budgets"]["memory_bytes"] <= d["budgets"]["physical_bytes"]' \
        'd["budgets"]["pinned_kb"] == min(33554432, d["budgets"]["memory_bytes"] // 8 // d["runtime"]["devices"] // 1024)' \
        'd["budgets"]["staging_kb"] == 131072'
    run 0 --json --explain "$WORK/data" --size 4000
    json_check 'd["explain"]["served_by"] == "fallback"' \
        'd["explain"]["backends"][0]["name"] == "fallback"' \
        'd["explain"]["backends"][0]["score"] == d["explain"]["served_score"] >= 0' \
        'd["explain"]["order"] == ["fallback"]' \
        'd["explain"]["file_facts"]["kind"] == "regular file"'
    ;;
BrokenPluginsAreNamedWithTheirReasons)
    mkdir "$WORK/plugins"
    cp "$PLUGIN_DIR/fallback.xml" "$PLUGIN_DIR/libhipfile-fallback.so" "$WORK/plugins/"
    cp "$MANIFEST_DIR/malformed.xml" "$MANIFEST_DIR/missing-library.xml" "$WORK/plugins/"
    fixture_plugin fixture-init-fails "$WORK/plugins"
    fixture_plugin fixture-no-device "$WORK/plugins"
    export HIPFILE_CONFIG=$(plugin_dir_config "$WORK/plugins")
    run 0
    expect_out "fallback.xml: fallback .*: loaded"
    expect_out "malformed.xml: invalid manifest: malformed XML: line [0-9]"
    expect_out "missing-library.xml: fixture-good .*: not loaded: .*libhipfile-not-there.so"
    expect_out "fixture-init-fails.xml: fixture-init-fails .*: not loaded: init failed: EIO"
    expect_out "fixture-no-device.xml: fixture-no-device .*: not loaded: .*probe returned ENODEV"
    run 0 --json
    json_check '{m["file"]: m["loaded"] for m in d["plugins"]["manifests"]} == {"fallback.xml": True, "fixture-init-fails.xml": False, "fixture-no-device.xml": False, "malformed.xml": False, "missing-library.xml": False}' \
        'all(m["reason"] for m in d["plugins"]["manifests"] if not m["loaded"])'
    ;;
EmptyPluginDirectoryExitsOne)
    mkdir "$WORK/empty"
    export HIPFILE_CONFIG=$(plugin_dir_config "$WORK/empty")
    run 1
    expect_out "GPU I/O is NOT usable (1 problem):"
    expect_out "1\. plugin directory $WORK/empty holds no manifests (\*\.xml), so no backend loaded"
    expect_out "fix: set plugins.directory at $WORK/hipfile.conf:2 to the directory that holds the plugin manifests (\*\.xml)"
    expect_out "warn: plugin directory $WORK/empty holds no manifests (\*\.xml), so no backend is loaded and every read and write will fail with hipFileIONotSupported"
    head -c 4096 /dev/zero >"$WORK/data"
    run 1 --explain "$WORK/data"
    expect_out "would be served by: *none"
    ;;
MalformedConfigIsNamedWithItsLine)
    printf 'plugins = {\n  directory = 42;\n};\n' >"$WORK/bad.conf"
    export HIPFILE_CONFIG=$WORK/bad.conf
    run 1
    expect_out "error: *$WORK/bad.conf:2: plugins.directory"
    expect_out "GPU I/O is NOT usable (1 problem):"
    expect_out "1\. the configuration does not load: $WORK/bad.conf:2: plugins.directory is an integer"
    expect_out "fix: correct line 2 of $WORK/bad.conf; then run hipfile-check again"
    ;;
RunsFromTheBuildTreeWithoutVariables)
    # As the README has it right after scripts/demo: no variable, the build tree's own config and
    # plugins, and on a machine without a GPU the host emulation, said so.
    unset HIPFILE_CONFIG HIPFILE_GPU_RUNTIME
    BUILD_DIR=$(cd "$PLUGIN_DIR/../../.." && pwd)
    run 0
    expect_out "file: *$BUILD_DIR/hipfile.conf\$"
    expect_out "GPU I/O is usable"
    expect_out "fallback.xml: fallback .*: loaded"
    run 0 --json
    json_check 'd["verdict"]["usable"] is True and d["verdict"]["problems"] == []' \
        'd["runtime"]["host_fallback"] == (d["runtime"]["name"] == "host")' \
        'd["verdict"]["host_fallback"] == d["runtime"]["host_fallback"]'
    if grep -q '"host_fallback": true' "$WORK/out"; then
        run 0
        expect_out "auto: *cannot bind gpu.runtime=auto"
        expect_out "no GPU is used: gpu.runtime is auto and no GPU runtime reports a device, so hipfile-check took the host emulation (.*libhip-host.so.0)"
        expect_out "Warnings and errors the library logged"
        if sed -n '/^Warnings and errors/,/^Verdict/p' "$WORK/out" | grep -q "error:"; then
            fail "the fallback left the auto failure among the errors"
        fi
    fi
    ;;
EveryProblemIsListedWithItsFix)
    export HIPFILE_GPU_RUNTIME=$WORK/libhip-nowhere.so HIPFILE_PLUGIN_DIR=$WORK/nowhere
    run 1
    expect_out "GPU I/O is NOT usable (2 problems):"
    expect_out "1\. gpu.runtime = \"$WORK/libhip-nowhere.so\" (from HIPFILE_GPU_RUNTIME) cannot be bound: "
    expect_out "fix: set HIPFILE_GPU_RUNTIME to auto, hip, cuda, host or the path of a HIP runtime library, or unset it"
    expect_out "2\. plugin directory $WORK/nowhere (from HIPFILE_PLUGIN_DIR): No such file or directory"
    expect_out "fix: set HIPFILE_PLUGIN_DIR to the directory that holds the plugin manifests (\*\.xml)"
    run 1 --json
    json_check 'len(d["verdict"]["problems"]) == 2' \
        'all(p["problem"] and p["fix"] for p in d["verdict"]["problems"])' \
        '"HIPFILE_PLUGIN_DIR" in d["verdict"]["problems"][1]["fix"]'
    ;;
MisspeltEnableNameIsNamedWithTheFix)
    export HIPFILE_PLUGINS=fallbak
    run 1
    expect_out "warn: HIPFILE_PLUGINS names \"fallbak\", but no manifest in $PLUGIN_DIR has that name (there: fallback, fastpath, nvme-passthru, remote); did you mean \"fallback\"?"
    expect_out "1\. HIPFILE_PLUGINS names \"fallbak\", but no manifest in $PLUGIN_DIR has that name"
    expect_out "fix: set HIPFILE_PLUGINS to names from: fallback, fastpath, nvme-passthru, remote (separated by commas), or unset it to allow them all"
    printf 'plugins = {\n  directory = "%s";\n  enable = ["fallback" "fastpath"];\n};\n' \
        "$PLUGIN_DIR" >"$WORK/comma.conf"
    unset HIPFILE_PLUGINS
    export HIPFILE_CONFIG=$WORK/comma.conf
    run 1
    expect_out "warn: $WORK/comma.conf:3: plugins.enable names \"fallbackfastpath\", but no manifest in $PLUGIN_DIR has that name (there: fallback, fastpath, nvme-passthru, remote); is a comma missing between \"fallback\" and \"fastpath\"?"
    expect_out "fix: at $WORK/comma.conf:3, list names from: fallback, fastpath, nvme-passthru, remote, separated by commas (or \[\] to allow them all)"
    ;;
ConfigTyposAreWarnedWithFileAndLine)
    printf 'plugins = {\n  directory = "%s";\n};\npropertys = {\n  allow_system_memory = true;\n};\nfallback = {\n  chunk_size_kib = 1024;\n};\n' \
        "$PLUGIN_DIR" >"$WORK/typos.conf"
    export HIPFILE_CONFIG=$WORK/typos.conf
    run 0
    expect_out "warn: $WORK/typos.conf:4: unknown group propertys ignored: it is not a core group (log, gpu, plugins, properties, execution, profile, fs) and no plugin in $PLUGIN_DIR has that name (there: fallback, fastpath, nvme-passthru, remote); did you mean properties?"
    expect_out "warn: $WORK/typos.conf:8: unknown key fallback.chunk_size_kib ignored: plugin fallback declares no such key; did you mean fallback.chunk_size_kb?"
    expect_out "GPU I/O is usable"
    expect_out "2 warnings above name settings or plugins that were ignored"
    ;;
BadEnvironmentValueIsBlamedOnTheVariable)
    export HIPFILE_LOG_LEVEL=loud
    run 1
    expect_out "1\. the configuration does not load: environment HIPFILE_LOG_LEVEL=\"loud\" is not valid for log.level"
    expect_out "fix: set HIPFILE_LOG_LEVEL to a value it accepts (the message says which), or unset it"
    ;;
MissingRuntimeSaysWhy)
    export HIPFILE_GPU_RUNTIME=$WORK/libhip-nowhere.so
    run 1
    expect_out "bound: *no"
    expect_out "why not: .*libhip-nowhere.so"
    run 1 --json
    json_check 'd["runtime"]["bound"] is False and "libhip-nowhere.so" in d["runtime"]["error"]'
    ;;
HostBufferNeedsSystemMemory)
    head -c 4096 /dev/zero >"$WORK/data"
    run 1 --explain "$WORK/data" --mem host
    expect_out "refuses this buffer"
    expect_out "properties.allow_system_memory"
    sed 's/allow_system_memory = false/allow_system_memory = true/' "$HIPFILE_CONFIG" \
        >"$WORK/system.conf"
    export HIPFILE_CONFIG=$WORK/system.conf
    run 0 --explain "$WORK/data" --mem pinned
    expect_out "memory type: *pinned host"
    expect_out "would be served by: *fallback"
    ;;
PluginSettingsAreListedPerBackend)
    # Settings show the source the core recorded (the file's line in JSON), plugins.priority's
    # entries included. Each loaded backend gets an entry: its declared keys with value, source
    # and help, or none when it declares no table (its group is then read undeclared).
    export HIPFILE_CONFIG="$WORK/hipfile.conf"
    printf 'plugins = {\n  directory = "%s";\n  priority = { fallback = 7; };\n};\nexecution = {\n  max_io_threads = 3;\n};\nfallback = {\n  staging_slots_per_device = 4;\n};\n' \
        "$PLUGIN_DIR" >"$HIPFILE_CONFIG"
    export HIPFILE_UNSUPPORTED_FILE_SYSTEMS=1
    run 0
    expect_out "^  plugins.priority  *{fallback = 7}  *config file"
    expect_out "^  execution.max_io_threads  *3 threads  *config file"
    expect_out "Plugin settings (key, value, where the value came from)"
    expect_out "^  - fallback"
    expect_out "^    fallback.staging_slots_per_device  *4 slots  *config file $HIPFILE_CONFIG:9\$"
    expect_out "^    fallback.inline_max_kb  *1024 KiB  *default\$"
    expect_out "^    fastpath.unsupported_file_systems  *true  *environment HIPFILE_UNSUPPORTED_FILE_SYSTEMS\$"
    run 0 --json
    json_check '[p["plugin"] for p in d["plugin_settings"]] == [b["name"] for b in d["backends"]]' \
        'all(bool(p["keys"]) == p["declared"] for p in d["plugin_settings"] if not p["declared"])' \
        'all(k["key"].startswith(p["plugin"] + ".") and k["type"] in ("integer", "boolean", "string") and k["source"] and k["help"] for p in d["plugin_settings"] for k in p["keys"])' \
        '{"value": 3, "source": "config file", "where": "'"$HIPFILE_CONFIG"':6"}.items() <= next(s for s in d["settings"] if s["key"] == "execution.max_io_threads").items()' \
        'next(s for s in d["settings"] if s["key"] == "plugins.priority")["value"] == {"fallback": 7}'
    ;;
BadOptionsExitTwo)
    head -c 4096 /dev/zero >"$WORK/data"
    run 2 --no-such-option
    expect_err "unknown option"
    run 2 --explain
    expect_err "needs a value"
    run 2 --explain "$WORK/data" --mem video
    expect_err "expected device, pinned or host"
    run 2 --explain "$WORK/data" --size 0
    run 2 --explain "$WORK/data" --size 12Q
    # A trailing space is not a unit: it was once read as TiB.
    run 2 --explain "$WORK/data" --size "1 "
    run 2 --explain "$WORK/data" --offset "4 "
    run 2 --explain "$WORK/data" --offset -1
    run 2 --size 4096
    expect_err "give --explain FILE"
    run 2 extra-argument
    expect_err "unexpected argument"
    run 2 --explain "$WORK/does-not-exist"
    expect_err "cannot open it"
    run 0 --help
    expect_out "Usage: hipfile-check"
    ;;
SecretsInUrlsAreRedacted)
    # A URL with a password and a presigned signature, as the file to explain and as a setting's
    # value: neither the report, its JSON, the captured log lines nor stderr shows the secret.
    MARK=S3CR3TMARK
    url="http://user:$MARK@127.0.0.1:9/obj?X-Amz-Credential=$MARK&X-Amz-Signature=$MARK"
    printf 'log = {\n  file = "%s";\n};\n' "$url" >"$WORK/url.conf"
    export HIPFILE_CONFIG=$WORK/url.conf HIPFILE_LOG_LEVEL=debug
    for form in "" --json; do
        "$EXE" --verbose $form >"$WORK/out" 2>"$WORK/err"
        ! grep -q "$MARK" "$WORK/out" "$WORK/err" || fail "hipfile-check $form shows the secret"
        grep -q 'http://\*\*\*@127.0.0.1:9/obj?X-Amz-Credential=\*\*\*&X-Amz-Signature=\*\*\*' \
            "$WORK/out" || fail "hipfile-check $form does not name the redacted URL"
    done
    run 2 --explain "$url"
    ! grep -q "$MARK" "$WORK/out" "$WORK/err" || fail "--explain shows the secret"
    expect_err 'explain http://\*\*\*@127.0.0.1:9/obj?X-Amz-Credential=\*\*\*&X-Amz-Signature=\*\*\*: cannot open it'
    ;;
*)
    echo "unknown case $CASE" >&2
    exit 2
    ;;
esac
echo "ok: $CASE"
