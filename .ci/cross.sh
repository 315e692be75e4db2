#!/usr/bin/env bash
# The library crates type-checked and linted for macOS (Apple silicon)
# and Windows from this Linux machine, rustc's and clippy's
# warnings as errors: Debian bookworm's Rust 1.85 (rustc-web and its
# clippy, rust-web-clippy, see .ci/rust-1.85.sh) builds each target's
# standard library from its sources (rust-web-src) with `-Zbuild-std`;
# `clippy` needs no linker. It catches what Linux hides: a `cfg(unix)`
# path with no Windows counterpart, `/proc` used outside
# `cfg(target_os = "linux")`, an import or a `mut` only one platform uses,
# a loop that loops only on Unix.
#
# Then the sans-IO crates, the core and the host machine, built for
# wasm32-unknown-unknown: a target with no processes, threads, file system
# or clock, and a 32-bit `usize`. They promise to run anywhere; this is
# what checks it (it found a byte limit that overflowed a 32-bit usize).
#
# Clippy 1.85 knows lints today's clippy (in .ci/run) has moved or
# dropped, and the other way round: the code satisfies both. Running is
# .ci/wine.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=rust-1.85.sh
source .ci/rust-1.85.sh
need_std_sources
need_clippy
packages=("${library_packages[@]}")
export PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
# `-Z` flags on a stable compiler.
export RUSTC_BOOTSTRAP=1 RUSTFLAGS="-D warnings"
# A target directory of its own: artifacts of two compilers do not mix.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/cross"
# One macOS target: no code of ours depends on the architecture (no
# `target_arch` anywhere), so x86_64-apple-darwin checked the same code a
# second time (about 2 min).
# Both targets in one cargo run: what runs on the build machine (build
# scripts, proc macros) is built once for both.
echo "== x86_64-pc-windows-msvc and aarch64-apple-darwin" >&2
/usr/bin/cargo clippy --locked -Zbuild-std=std,panic_abort \
  --target x86_64-pc-windows-msvc --target aarch64-apple-darwin \
  "${packages[@]}" --all-features -- -D warnings
echo "== wasm32-unknown-unknown: claude-proto and claude-proto-host" >&2
/usr/bin/cargo build --locked -Zbuild-std=std,panic_abort --target wasm32-unknown-unknown \
  -p claude-proto -p claude-proto-host --lib
