#!/usr/bin/env bash
# The crates as a user gets them from crates.io, checked before any is
# published:
#
# 1. `cargo package` packs the eleven library crates (what a publish
#    uploads: a file left out, a path-only dependency or a missing readme
#    fails here).
# 2. A directory registry stands in for crates.io: the third-party crates
#    of Cargo.lock (`cargo vendor`) beside our packaged crates, each
#    unpacked from its .crate file. Nothing in it is a path dependency.
# 3. A project outside the workspace (a temporary directory) depends on
#    the crates as the README's [dependencies] block says, and on every
#    other packaged crate by version, with every feature, through that
#    registry alone, and builds with today's stable Rust and type-checks
#    with the declared minimum, Rust 1.85 (Debian's, see rust-1.85.sh;
#    claude-proto-rmcp, whose minimum is rmcp's 1.88, with stable only).
# 4. The README's first example, taken from README.md as it is, is one of
#    that project's binaries, and runs offline against the pinned CLI
#    (CLAUDE_BIN) and the test kit's loopback stand-in for the model API:
#    it must exit 0 and print the stand-in's answer.
#
# Usage: CLAUDE_BIN=path/to/claude bash .ci/release-check.sh
# Without CLAUDE_BIN, step 4 is skipped (under CI it fails).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

publishable=(claude-proto claude-proto-host claude-proto-process claude-proto-adapter
  claude-proto-sessions claude-proto-async claude-proto-tokio claude-proto-blocking
  claude-proto-async-std claude-proto-rmcp claude-proto-testkit)
version=$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "claude-proto"))')

work=$(mktemp -d "${TMPDIR:-/tmp}/claude-proto-release-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
registry=$work/registry
app=$work/app

echo "== cargo package (version $version)"
# --no-verify: cargo's own check builds each crate alone with default
# features; step 3 builds them all, with every feature, from the same
# .crate files, outside the workspace.
package_args=()
for name in "${publishable[@]}"; do package_args+=(-p "$name"); done
cargo package --locked --no-verify "${package_args[@]}"
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

echo "== a directory registry: Cargo.lock's crates and the packaged ones"
cargo vendor --locked --versioned-dirs "$registry" >/dev/null 2>&1
for name in "${publishable[@]}"; do
  crate="$target_dir/package/$name-$version.crate"
  tar -xzf "$crate" -C "$registry"
  sum=$(sha256sum "$crate" | cut -d' ' -f1)
  printf '{"files":{},"package":"%s"}\n' "$sum" >"$registry/$name-$version/.cargo-checksum.json"
done

echo "== a project outside the workspace, depending on them by version"
mkdir -p "$app/src/bin" "$app/.cargo"
cat >"$app/.cargo/config.toml" <<EOF
# crates.io is this directory: the packaged crates and their dependencies.
[source.crates-io]
replace-with = "packaged"
[source.packaged]
directory = "$registry"
EOF
cat >"$app/Cargo.toml" <<EOF
[package]
name = "release-check"
version = "0.0.0"
edition = "2024"
publish = false

# A workspace of its own, whatever directory holds it.
[workspace]

[features]
# claude-proto-rmcp needs Rust 1.88 (rmcp's minimum): stable only.
rmcp = ["dep:claude-proto-rmcp"]

# No debug info: nothing here is debugged, and the three binaries link
# faster without it.
[profile.dev]
debug = false

EOF
# The README's [dependencies] block, as a new user copies it, then every
# other packaged crate with every feature.
awk '/^```toml/ { inside = 1; next }
     inside && /^```/ { if (found) exit; inside = 0; next }
     inside && /^\[dependencies\]/ { found = 1 }
     inside && found { print }' README.md >"$work/readme-dependencies.toml"
if ! grep -q '^claude-proto-tokio = ' "$work/readme-dependencies.toml"; then
  echo "the README's [dependencies] block (for a tokio project) was not found; update this script" >&2
  exit 1
fi
cat "$work/readme-dependencies.toml" >>"$app/Cargo.toml"
while read -r name features; do
  if ! grep -q "^$name = " "$work/readme-dependencies.toml"; then
    echo "$name = { version = \"=$version\", features = [$features] }" >>"$app/Cargo.toml"
  fi
done <<EOF
claude-proto
claude-proto-host
claude-proto-process "tracing", "opentelemetry"
claude-proto-adapter "tracing"
claude-proto-sessions "postgres"
claude-proto-async "tracing", "opentelemetry"
claude-proto-tokio "tracing", "opentelemetry"
claude-proto-blocking "tracing", "opentelemetry"
claude-proto-async-std "async-std", "smol", "tracing", "opentelemetry"
claude-proto-testkit "tokio", "blocking", "async-std"
EOF
echo "claude-proto-rmcp = { version = \"=$version\", optional = true }" >>"$app/Cargo.toml"
# The README's first Rust example, as the README shows it: rustdoc's
# hidden lines ("# ...") are part of the code.
awk '/^```rust/ && !seen { inside = 1; seen = 1; next }
     inside && /^```/ { exit }
     inside { sub(/^# ?/, ""); print }' README.md >"$app/src/bin/readme_first_example.rs"
if ! grep -q 'async fn run()' "$app/src/bin/readme_first_example.rs"; then
  echo "the README's first example no longer defines \`async fn run()\`; update this script" >&2
  exit 1
fi
cat >>"$app/src/bin/readme_first_example.rs" <<'EOF'

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    run().await
}
EOF
# A typed in-process tool, as the README's tour writes one: its derives
# need nothing but the README's [dependencies] block.
cat >"$app/src/bin/typed_tool.rs" <<'EOF'
use claude_proto_tokio::prelude::*;

/// The `add` tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct Add {
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
}

fn main() {
    let calc = McpServer::new("calc", "1.0.0").tool(
        "add",
        "Adds two numbers.",
        async |Add { a, b }: Add| Ok(a + b),
    );
    let _builder = Claude::builder(Options::default()).mcp_server(calc);
}
EOF
cat >"$app/src/bin/offline.rs" <<'EOF'
//! Runs the example named on the command line with the CLI pointed at the
//! test kit's loopback stand-in for the model API: every model call is
//! answered with ANSWER, which the example must print.
use claude_proto_testkit::model_api::{ModelApi, Reply};
use std::process::Command;

const ANSWER: &str = "The stand-in's answer.";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = std::env::var_os("CLAUDE_BIN").ok_or("CLAUDE_BIN must name the pinned CLI")?;
    let example = std::env::args_os().nth(1).ok_or("usage: offline EXAMPLE")?;
    let api = ModelApi::start(|_| Reply::text(ANSWER))?;
    let output = Command::new(example)
        .env_clear()
        .envs(api.env())
        .env("CLAUDE_BIN", cli)
        .current_dir(api.home())
        .output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        return Err(format!("the example failed: {}", output.status).into());
    }
    if !stdout.contains(ANSWER) {
        return Err("the example did not print the stand-in's answer".into());
    }
    Ok(())
}
EOF
cat >"$app/src/lib.rs" <<'EOF'
//! Nothing of its own: the dependencies are what is built.
EOF

echo "== built with stable ($(cargo --version))"
(cd "$app" && cargo build --features rmcp)

echo "== the README's first example, offline against the pinned CLI"
if [ -n "${CLAUDE_BIN:-}" ]; then
  "$app/target/debug/offline" "$app/target/debug/readme_first_example"
elif [ "${CI:-}" = true ]; then
  echo "CLAUDE_BIN is not set: the pinned CLI is needed under CI" >&2
  exit 1
else
  echo "skipped: CLAUDE_BIN is not set"
fi

echo "== checked with the declared minimum, Rust 1.85"
# `cargo check`, as cargo-msrv checks a minimum: what a newer Rust would
# accept and 1.85 would not (a newer API, syntax, a dependency's own
# minimum) fails type checking; build scripts and proc macros still build
# and run with 1.85. Code generation and linking with 1.85 are
# .ci/wine.sh's, which builds and runs tests with it. A full build here
# took 1 min 55 s of both cores.
# shellcheck source=rust-1.85.sh
source "$root/.ci/rust-1.85.sh"
(cd "$app" && RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR=target/msrv \
  /usr/bin/cargo check)
echo "release check passed: ${#publishable[@]} crates packaged, built outside the workspace with stable and checked with 1.85, the README's first example run offline"
