# Sourced, not run: `real_model_server` starts ONE llama.cpp server (tests/real_model/serve.py,
# one thread, 16k context) for "$dir/$model.gguf" on a free port and waits until it answers,
# for the scripts that drive the local real model by hand (tools/eval/run.sh,
# scripts/restaurant-real-model.sh). It needs $root, $dir and $model; it sets $port, $server
# (the server's pid) and $model_log; the caller's EXIT trap stops it. Environment given to
# the call (SLOT_SAVE_PATH=...) reaches the server.
real_model_server() {
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    model_log="$(mktemp)"
    "$dir/venv/bin/python" "$root/tests/real_model/serve.py" "$dir/$model.gguf" "$model" "$port" 1 16384 >"$model_log" 2>/dev/null &
    server=$!
    for _ in $(seq 1 240); do
        grep -q '^ready' "$model_log" && curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
        sleep 0.5
    done
}
