#!/usr/bin/env bash
# Benchmarks our A2A server against the official Rust server (a2a-server-lf 0.5.3, the small
# agent crate in benches/a2a-server-lf/) and the Python a2a-sdk 1.3.0 reference server in one
# run (benches/server.rs): SendMessage requests per second and p99 latency at 1, 16 and 64
# concurrent clients, over JSON-RPC and over gRPC (ours and a2a-server-lf's, a2a-grpc), and
# resident memory with 1,000 and 5,000 open SendStreamingMessage
# connections. Prints figures and ratios; asserts nothing. Extra arguments go to the bench
# binary. Knobs: BENCH_PROTOCOL (1.0 or 0.3), BENCH_SECONDS, BENCH_MAX_REQUESTS, BENCH_STREAMS,
# BENCH_OPEN_SECONDS (see the bench).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-test-deps.sh
# The official Rust SDK's server, built in release mode like ours (cargo bench).
cargo build --release --quiet --manifest-path benches/a2a-server-lf/Cargo.toml

# 5,000 streams need 5,000 sockets in the benchmark and as many in each server.
hard="$(ulimit -Hn)"
if [[ "$hard" == unlimited || "$hard" -gt 65536 ]]; then hard=65536; fi
ulimit -n "$hard"
if [[ "$hard" -lt 11000 ]]; then
    echo "bench-server: open-file limit is $hard; the 5,000-stream figure may show failures" >&2
fi

# --features grpc: our server serves gRPC too, so the gRPC rows run.
exec cargo bench --bench server --features grpc -- "$@"
