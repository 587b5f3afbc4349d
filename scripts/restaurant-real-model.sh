#!/usr/bin/env bash
# The restaurant agent against the local real model, in a real browser: starts ONE llama.cpp
# server (installed by scripts/install-real-model.sh; MODEL=<alias> picks another installed
# model, default the 1.5B one), builds and starts examples/restaurant_agent on a free port
# (FORMAT=express by default, FORMAT=direct for JSON; with the grammar, as llama.cpp takes it,
# unless GRAMMAR=0), and drives its page in Debian's
# headless Chromium with web/test/restaurant.mjs: ask for Thai food in Paris, press Book,
# fill the form, press Confirm, look for the booking id. Prints one JSON line per step;
# screenshots go to target/tmp/restaurant/. Heavy: one model server, minutes per turn on a
# small CPU. Exits as the driver does (0: booked).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${A2UI_REAL_MODEL_DIR:-$root/.cache/real-model}"
model="${MODEL:-qwen2.5-coder-1.5b-instruct}"
format="${FORMAT:-express}"
grammar=(--grammar)
[[ "${GRAMMAR:-1}" == 0 ]] && grammar=()
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
[[ -f "$dir/$model.gguf" ]] || { echo "no $dir/$model.gguf: run MODEL=$model scripts/install-real-model.sh" >&2; exit 2; }
[[ -d "$root/web/node_modules/puppeteer-core" ]] || { echo "no web/node_modules: run scripts/install-test-deps.sh" >&2; exit 2; }
cargo build --release --quiet --all-features --example restaurant_agent --manifest-path "$root/Cargo.toml"
agent_port="$(free_port)"
# shellcheck source=real-model-server.sh
source "$root/scripts/real-model-server.sh"
server=""
agent=""
model_log=""
trap 'kill $server $agent 2>/dev/null; wait 2>/dev/null; rm -f "$model_log"' EXIT
real_model_server
"$root/target/release/examples/restaurant_agent" --model-url "http://127.0.0.1:$port/v1" \
    --model "$model" --port "$agent_port" --format "$format" "${grammar[@]}" >&2 &
agent=$!
for _ in $(seq 1 60); do
    curl -sf "http://127.0.0.1:$agent_port/" >/dev/null && break
    sleep 0.5
done
cd "$root/web"
node test/restaurant.mjs "http://127.0.0.1:$agent_port/" "$root/target/tmp/restaurant" "${CHROMIUM:-/usr/bin/chromium}"
