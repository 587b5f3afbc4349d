#!/usr/bin/env bash
# The official A2A 1.0 TCK against tools/src/bin/tck_sut.rs, over JSON-RPC, HTTP+JSON and gRPC.
#
#   scripts/tck.sh            # after scripts/install-test-deps.sh (it makes .venv-tck/)
#
# The TCK is read from $A2A_TCK_DIR, else ../shared/reference/a2a-tck; absent, the step says
# "skipped" (and fails when A2UI_REQUIRE_REFERENCE=1). It writes reports/ beside itself, so it
# runs from a fresh copy in .venv-tck/a2a-tck (git-ignored). The server under test is the
# debug build of the tool, on a free 127.0.0.1 port: the build step of scripts/test.sh has made
# it already, and against a release build the TCK took as long (see docs/interop.md).
#
# Two passes: the whole TCK against the server with push notifications on, then the few
# tests that need a server without them (its errors for push methods) against one started
# with --no-push. Fails when a MUST or SHOULD test fails. Prints the counts of both passes
# merged (a test skipped in the first and run in the second counts as run): passed,
# failed, skipped by reason.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

tck="${A2A_TCK_DIR:-$root/../shared/reference/a2a-tck}"
if [[ ! -f "$tck/run_tck.py" ]]; then
    if [[ "${A2UI_REQUIRE_REFERENCE:-0}" == 1 ]]; then
        echo "tck: A2UI_REQUIRE_REFERENCE=1 but the TCK is absent at $tck" >&2
        exit 1
    fi
    echo "tck: skipped: the TCK is absent at $tck"
    exit 0
fi
if [[ ! -x .venv-tck/bin/python ]]; then
    echo "tck: .venv-tck is missing: run scripts/install-test-deps.sh" >&2
    exit 1
fi

# The same command as the build step of scripts/test.sh, so nothing to rebuild there: the
# examples and the tools together (the library with all features, once).
cargo build --quiet --workspace --all-features --examples --bins
work="$root/.venv-tck/a2a-tck"
rm -rf "$work"
mkdir -p "$work"
cp -R "$tck/." "$work/"

log="$(mktemp)"
outcomes="$(mktemp)"
outcomes_off="$(mktemp)"
sut_pid=""
stop_sut() {
    if [[ -n "$sut_pid" ]]; then
        kill "$sut_pid" 2>/dev/null || true
        wait "$sut_pid" 2>/dev/null || true
        sut_pid=""
    fi
}
cleanup() {
    stop_sut
    rm -f "$log" "$outcomes" "$outcomes_off"
}
trap cleanup EXIT

# One TCK run against a fresh server under test: pass NAME, the SUT's arguments in SUT_ARGS,
# the outcomes file, then extra pytest arguments.
run_pass() {
    local name="$1" outcomes_file="$2"
    shift 2
    : >"$log"
    "${CARGO_TARGET_DIR:-target}/debug/tck_sut" --port 0 "${SUT_ARGS[@]}" >"$log" 2>&1 &
    sut_pid=$!
    local url=""
    for _ in $(seq 100); do
        url="$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$log" | head -n 1)"
        [[ -n "$url" ]] && break
        if ! kill -0 "$sut_pid" 2>/dev/null; then
            cat "$log" >&2
            echo "tck: the server under test exited ($name)" >&2
            exit 1
        fi
        sleep 0.1
    done
    if [[ -z "$url" ]]; then
        cat "$log" >&2
        echo "tck: the server under test did not start ($name)" >&2
        exit 1
    fi
    local status=0
    (
        cd "$work"
        TCK_OUTCOMES="$outcomes_file" PYTHONPATH="$root/scripts" \
            "$root/.venv-tck/bin/python" run_tck.py --sut-host "${url%/}" \
            --transport jsonrpc,http_json,grpc -- -p tck_report "$@"
    ) >"$work/run-$name.log" 2>&1 || status=$?
    stop_sut
    if [[ ! -s "$outcomes_file" ]]; then
        cat "$work/run-$name.log" >&2
        echo "tck: the TCK did not run ($name, exit $status)" >&2
        exit 1
    fi
}

# The whole TCK against a server with push notifications on; then, against one with push
# off, the tests that check what a server without push answers (they skip on the first).
SUT_ARGS=()
run_pass main "$outcomes"
SUT_ARGS=(--no-push)
run_pass push-off "$outcomes_off" -k "push_not_supported or push_notification_not_supported"
echo "tck: full logs in $work/run-*.log, reports (of the last pass) in $work/reports/"
.venv-tck/bin/python scripts/tck_report.py "$outcomes" "$outcomes_off"
