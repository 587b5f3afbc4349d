#!/usr/bin/env bash
# Benchmarks our A2A server against the Python a2a-sdk 1.3.0 reference server in one run
# (benches/server.rs): message/send requests per second and p99 latency at 1, 16 and 64
# concurrent clients, and resident memory with 1,000 and 5,000 open message/stream
# connections. Prints figures; asserts nothing. Extra arguments go to the bench binary.
# Knobs: BENCH_SECONDS, BENCH_MAX_REQUESTS, BENCH_STREAMS, BENCH_OPEN_SECONDS (see the bench).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-test-deps.sh

# 5,000 streams need 5,000 sockets in the benchmark and as many in each server.
hard="$(ulimit -Hn)"
if [[ "$hard" == unlimited || "$hard" -gt 65536 ]]; then hard=65536; fi
ulimit -n "$hard"
if [[ "$hard" -lt 11000 ]]; then
    echo "bench-server: open-file limit is $hard; the 5,000-stream figure may show failures" >&2
fi

exec cargo bench --bench server -- "$@"
