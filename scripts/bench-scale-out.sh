#!/usr/bin/env bash
# Scale-out check (benches/streams_per_core.rs --scale-out): two instances of the
# streams bench's server (closure agent, one chunk per 20 ms) on one throwaway PostgreSQL
# cluster, the streams split across them and each read to its end. Prints the total streams,
# p50/p99 chunk-to-frame, each instance's CPU, and whether anything was lost (every stream
# ended after its final event, every task stored completed); exits 1 if something was.
# Knobs: BENCH_SCALE_STREAMS (per instance, default 200), BENCH_COMPONENTS (default 40),
# BENCH_PROTOCOL=0.3, A2UI_PG_BIN (PostgreSQL's bin dir; default the newest under
# /usr/lib/postgresql). Run it under `flock /work/wt/heavy.lock` on a shared machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

pg_bin="${A2UI_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [[ -z "$pg_bin" || ! -x "$pg_bin/initdb" ]]; then
    echo "bench-scale-out: no PostgreSQL binaries (apt-get install postgresql, or set A2UI_PG_BIN)" >&2
    exit 2
fi

# Built first, so compiling does not share the cores with the run.
cargo bench --bench streams_per_core --features postgres --no-run --quiet

# PostgreSQL refuses to run as root: then its programs run as `postgres`, in a dir it owns.
dir="$(mktemp -d /tmp/a2ui-scale-out.XXXXXX)"
as_pg=()
if [[ "$(id -u)" == 0 ]]; then
    chown postgres:postgres "$dir"
    as_pg=(runuser -u postgres --)
fi
stop() {
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${as_pg[@]}" "$pg_bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100" \
    start >/dev/null
echo "bench-scale-out: PostgreSQL on 127.0.0.1:$port" >&2

# Every stream is a socket in the client and in an instance.
hard="$(ulimit -Hn)"
if [[ "$hard" == unlimited || "$hard" -gt 1048576 ]]; then hard=1048576; fi
ulimit -n "$hard"

cargo bench --bench streams_per_core --features postgres -- \
    --scale-out "postgres://postgres@127.0.0.1:$port/postgres" "$@"
