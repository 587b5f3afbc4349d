#!/usr/bin/env bash
# Streams per core (benches/streams_per_core.rs): N live model streams, paced at one
# token-sized chunk per 20 ms, against our server pinned to one core (BENCH_SERVER_CORE,
# default 0) with the load on the others, and the official Python stack (a2a-sdk 1.3.0 +
# a2ui-agent-sdk 0.9.0) under the same load. Prints the table, the ratios and each target of
# the streams targets with its verdict; asserts nothing. Extra arguments go to the bench binary. Knobs:
# BENCH_STREAMS, BENCH_PY_STREAMS, BENCH_PY_MODEL=1, BENCH_COMPONENTS, BENCH_SECONDS,
# BENCH_IDLE_STREAMS, BENCH_DEMO_STREAMS, BENCH_PROTOCOL=0.3, A2UI_VENV,
# BENCH_AGENTS (see the bench).
# BENCH_COALESCE_MS=0,1,2,5 (with BENCH_COALESCE_STREAMS, default 1000) prints the curve of
# the server's coalescing window instead of the levels. The two-instance PostgreSQL check is
# scripts/bench-scale-out.sh.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ -z "${A2UI_VENV:-}" && ! -x .venv/bin/python ]]; then
    scripts/install-test-deps.sh
fi

# Every stream is a socket in the client, in the server and (connector) in the model.
hard="$(ulimit -Hn)"
if [[ "$hard" == unlimited || "$hard" -gt 1048576 ]]; then hard=1048576; fi
ulimit -n "$hard"
echo "bench-streams: ulimit -n $(ulimit -n)" >&2

# Built first, so compiling does not share the cores with the run.
cargo bench --bench streams_per_core --no-run --quiet
exec cargo bench --bench streams_per_core -- "$@"
