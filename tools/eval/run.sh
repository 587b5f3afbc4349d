#!/usr/bin/env bash
# Runs the eval (tools/src/bin/eval/) against the real model installed by
# scripts/install-real-model.sh: starts ONE llama.cpp server (one thread, 16k context) on a
# free port, runs `eval` with the arguments given, stops the server. Heavy: run it under
# `flock` when others share the machine. MODEL=<alias> picks another installed GGUF
# (.cache/real-model/<alias>.gguf). With SLOT=<name> the server's prompt cache is restored
# from .cache/real-model/slots/<model>-<name>.bin before the eval and saved after it, so
# the long system prompt is read once across runs (name one per prompt variant).
#   tools/eval/run.sh --prompt official --take 10 --out /tmp/official.json
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${A2UI_REAL_MODEL_DIR:-$root/.cache/real-model}"
model="${MODEL:-qwen2.5-coder-0.5b-instruct}"
mkdir -p "$dir/slots"
# shellcheck source=../../scripts/real-model-server.sh
source "$root/scripts/real-model-server.sh"
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$model_log"' EXIT
SLOT_SAVE_PATH="$dir/slots" real_model_server
slots="http://127.0.0.1:$port/slots/0"
if [[ -n "${SLOT:-}" && -f "$dir/slots/$model-$SLOT.bin" ]]; then
    curl -sf -X POST "$slots?action=restore" -H 'content-type: application/json' \
        -d "{\"filename\": \"$model-$SLOT.bin\"}" | sed 's/^/run.sh: restored /' >&2 \
        || echo "run.sh: no prompt cache restored" >&2
fi
status=0
"${EVAL:-${CARGO_TARGET_DIR:-$root/target}/debug/eval}" --model-url "http://127.0.0.1:$port/v1" --model "$model" "$@" || status=$?
if [[ -n "${SLOT:-}" ]]; then
    curl -sf -X POST "$slots?action=save" -H 'content-type: application/json' \
        -d "{\"filename\": \"$model-$SLOT.bin\"}" | sed 's/^/run.sh: saved /' >&2 \
        || echo "run.sh: the prompt cache was not saved" >&2
fi
exit "$status"
