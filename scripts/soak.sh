#!/usr/bin/env bash
# Soak test: runs `a2ui-agent serve` (the demo agent) under a steady load of streams for a
# bounded time and checks that nothing leaks: no task left running, memory flat, file
# descriptors back where they started.
#
# The load client (tools/src/bin/soak_client.rs) keeps --streams SendStreamingMessage streams
# going, with random hang-ups mid-stream, cancels mid-stream (sent to the other instance
# when there are two), continuations of tasks waiting for input and cancels of waiting
# tasks. Every second this script samples each server's resident memory (/proc/PID/status),
# open file descriptors (/proc/PID/fd) and threads (/proc/PID/task), and prints them at the
# start, after the first minute, at the peak and at the end (after the drain). Then:
#
#   PASS/FAIL unsettled == 0     no task still submitted/working once the load has drained
#                                (every task the client created, by tasks/get, and the
#                                first server's whole ListTasks listing)
#   PASS/FAIL rss                RSS when the load ended <= 110% of the RSS after the
#                                first minute (with --duration under 60 s: equal). The
#                                checks' own burst of reads comes after; the "end" figure
#                                printed includes it.
#   PASS/FAIL fds                end fd count <= the count before the load
#
# and exits 1 on any FAIL. Finished tasks expire after --ttl seconds (default 30) so the
# store reaches its steady size within the first minute: with the default hour, a growing
# store would look like a leak.
#
# The demo runs without --cancel-on-disconnect unless --cancel-on-disconnect is given: off,
# every hung-up task runs to its end with no one reading (the runner's cut-off path); on,
# the hang-up cancels it (the disconnect path). Run both for a full check.
#
# Usage: scripts/soak.sh [--duration SECS] [--streams N] [--store STORE] [--instances 1|2]
#                        [--ttl SECS] [--cancel-on-disconnect] [--no-build] [--debug]
#   --store   any value `a2ui-agent serve --store` takes (memory, sqlite:PATH, ...);
#             two instances need a store they share (not memory).
#   --no-build  reuse target/release/a2ui-agent and target/release/soak_client.
#   --debug     use (and build) the debug binaries instead: quicker to build, for a smoke run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

duration=60
streams=16
store=memory
instances=1
ttl=30
cancel_on_disconnect=()
build=1
profile=release
while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --streams) streams="$2"; shift 2 ;;
        --store) store="$2"; shift 2 ;;
        --instances) instances="$2"; shift 2 ;;
        --ttl) ttl="$2"; shift 2 ;;
        --cancel-on-disconnect) cancel_on_disconnect=(--cancel-on-disconnect); shift ;;
        --no-build) build=0; shift ;;
        --debug) profile=debug; shift ;;
        -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "soak: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [[ "$instances" != 1 && "$instances" != 2 ]]; then
    echo "soak: --instances must be 1 or 2" >&2; exit 2
fi
if [[ "$instances" == 2 && "$store" == memory ]]; then
    echo "soak: two instances need a store they share (--store sqlite:PATH or postgres://...)" >&2
    exit 2
fi

if [[ "$build" == 1 ]]; then
    # One build for both packages: the library is compiled once, with the features of both.
    flags=(--quiet --features a2ui-agent/cli -p a2ui-agent --bin a2ui-agent
        -p a2ui-agent-tools --bin soak_client)
    [[ "$profile" == release ]] && flags+=(--release)
    cargo build "${flags[@]}"
fi
target="${CARGO_TARGET_DIR:-$root/target}"
server_bin="$target/$profile/a2ui-agent"
client_bin="$target/$profile/soak_client"

work="$(mktemp -d "${TMPDIR:-/tmp}/a2ui-soak.XXXXXX")"
pids=()
sampler=""
cleanup() {
    [[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# Start the servers and read where each listens from its log.
urls=()
for n in $(seq 1 "$instances"); do
    log="$work/server$n.log"
    RUST_LOG=warn,a2ui_agent=info NO_COLOR=1 "$server_bin" serve --port 0 --store "$store" \
        --finished-ttl-secs "$ttl" --min-delay-ms 1 --max-delay-ms 4 \
        --max-running-tasks-per-client 100000 "${cancel_on_disconnect[@]}" \
        >/dev/null 2>"$log" &
    pids+=("$!")
    address=""
    for _ in $(seq 1 100); do
        address="$(grep -o 'card at http://[^/]*' "$log" | head -1 | sed 's|card at http://||' || true)"
        [[ -n "$address" ]] && break
        if ! kill -0 "${pids[-1]}" 2>/dev/null; then
            echo "soak: server $n exited:" >&2; cat "$log" >&2; exit 1
        fi
        sleep 0.1
    done
    if [[ -z "$address" ]]; then echo "soak: server $n did not start" >&2; exit 1; fi
    urls+=("http://$address/")
done

# One line per second and server: seconds since the load started, instance, RSS kB, fds,
# threads.
sample() {
    local t="$1" n=0
    for pid in "${pids[@]}"; do
        n=$((n + 1))
        local rss fds threads
        rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
        fds="$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
        threads="$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
        echo "$t $n ${rss:-0} $fds $threads"
    done
}
samples="$work/samples"
sleep 1
sample 0 >"$samples"
started="$(date +%s)"
(
    while true; do
        sleep 1
        sample "$(( $(date +%s) - started ))" >>"$samples"
    done
) &
sampler="$!"

echo "soak: $instances instance(s) on --store $store, $streams streams for ${duration}s," \
    "ttl ${ttl}s, ${cancel_on_disconnect[*]:-no --cancel-on-disconnect}"
"$client_bin" --urls "$(IFS=,; echo "${urls[*]}")" --duration "$duration" \
    --streams "$streams" --drain 120 | tee "$work/client.out"
# Let closed connections be reaped, then take the end sample.
sleep 3
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sampler=""
sample "$(( $(date +%s) - started ))" >>"$samples"

for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "FAIL server process $pid died"; exit 1
    fi
done

status=0
load_end="$(( $(sed -n 's/^load-ended-at=//p' "$work/client.out") - started ))"
minute=$(( duration < 60 ? duration : 60 ))
for n in $(seq 1 "$instances"); do
    read -r start_rss start_fds <<<"$(awk -v n="$n" '$2 == n {print $3, $4; exit}' "$samples")"
    read -r minute_rss <<<"$(awk -v n="$n" -v m="$minute" '$2 == n && $1 <= m {r = $3} END {print r}' "$samples")"
    read -r peak_rss peak_fds <<<"$(awk -v n="$n" '$2 == n {if ($3 > r) r = $3; if ($4 > f) f = $4} END {print r, f}' "$samples")"
    read -r end_rss end_fds <<<"$(awk -v n="$n" '$2 == n {r = $3; f = $4} END {print r, f}' "$samples")"
    read -r load_rss <<<"$(awk -v n="$n" -v e="$load_end" '$2 == n && $1 <= e {r = $3} END {print r}' "$samples")"
    echo "instance $n RSS kB: start $start_rss, after ${minute}s $minute_rss, load end $load_rss, peak $peak_rss, end $end_rss"
    echo "instance $n fds:    start $start_fds, peak $peak_fds, end $end_fds"
    echo "instance $n threads: $(awk -v n="$n" '$2 == n {if (!s) s = $5; if ($5 > p) p = $5; e = $5} END {printf "start %s, peak %s, end %s", s, p, e}' "$samples")"
    echo "instance $n RSS kB every 30 s: $(awk -v n="$n" '$2 == n && $1 % 30 == 0 {printf "%s ", $3}' "$samples")"
    if (( load_rss * 100 <= minute_rss * 110 )); then
        echo "PASS instance $n rss: load end $load_rss kB <= 110% of $minute_rss kB"
    else
        echo "FAIL instance $n rss: load end $load_rss kB > 110% of $minute_rss kB"; status=1
    fi
    if (( end_fds <= start_fds )); then
        echo "PASS instance $n fds: end $end_fds <= start $start_fds"
    else
        echo "FAIL instance $n fds: end $end_fds > start $start_fds"; status=1
    fi
done
unsettled="$(sed -n 's/^unsettled=//p' "$work/client.out")"
if [[ "$unsettled" == 0 ]]; then
    echo "PASS unsettled == 0"
else
    echo "FAIL unsettled == ${unsettled:-?}"; status=1
fi
exit "$status"
