#!/usr/bin/env bash
# The project's one test command: formatting, lints, every test and doctest, and the interop
# tests against the real Python and JavaScript A2A clients. It installs what the tests need
# (a Python virtualenv in .venv/, npm packages in node_modules/ and web/node_modules/, Debian's
# chromium, the A2A TCK in .venv-tck/) and reuses them when present.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "installing test dependencies (reused when present)"
scripts/install-test-deps.sh

step "the page's and the MCP Apps renderer's committed bundles (web/dist, web/mcp-app/dist) match their sources, and the page's unit tests"
node web/build.mjs --check
node web/mcp-app/build.mjs --check
node --test web/test/*.test.mjs

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --all-targets -- -D warnings
# Our tools (tools/) with the features they are built with below.
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "the shape of src/: no import circle between files, no file or function past its limit"
python3 scripts/check_structure.py

step "the public API is the one committed in public-api.txt"
python3 scripts/public_api.py --check

step "the docs build without a warning (private intra-doc links included)"
RUSTDOCFLAGS="-D warnings" cargo doc --all-features --no-deps --quiet

step "the parser and the A2UI knowledge build without the server"
cargo check --lib --no-default-features

step "the binary builds with the one feature the README names (--features cli)"
cargo check --bin a2ui-agent --features cli

step "the examples and our tools (tools/) build"
# One command for both packages (scripts/tck.sh runs the same one): the library is compiled
# once, with all features, for the examples, the tools and the tests below.
cargo build --workspace --all-features --examples --bins

step "tests and doctests"
# The reference folder (../shared/reference), the interop clients and PostgreSQL must be
# present here: a test that would skip without them fails instead.
export A2UI_REQUIRE_REFERENCE=1
export A2UI_REQUIRE_INTEROP=1
export A2UI_REQUIRE_POSTGRES=1
# The real model (llama.cpp + a 0.5B model, one thread): tests/real_model.rs, ~4 min here.
export A2UI_REQUIRE_REAL_MODEL=1
# --workspace: the tools' own unit tests too (tck_sut's), on the same build as the step above.
cargo test --workspace --all-features

# ---- The official A2A 1.0 TCK ------------------------------------------------------------
step "the A2A 1.0 TCK against tools/src/bin/tck_sut.rs (JSON-RPC, HTTP+JSON and gRPC)"
# The official TCK, read from the reference folder beside this checkout (required: with
# A2UI_REQUIRE_REFERENCE=1 a missing TCK fails the step).
A2A_TCK_DIR="${A2A_TCK_DIR:-$PWD/../shared/reference/a2a-tck}" scripts/tck.sh
