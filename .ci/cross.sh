#!/usr/bin/env bash
# The library crates type-checked for macOS (Intel and Apple silicon) and
# Windows from this Linux machine, with rustc's warnings as errors: Debian
# bookworm's Rust 1.85 (rustc-web, see .ci/rust-1.85.sh) builds each
# target's standard library from its sources (rust-web-src) with
# `-Zbuild-std`; `check` needs no linker. It catches what Linux hides: a
# `cfg(unix)` path with no Windows counterpart, `/proc` used outside
# `cfg(target_os = "linux")`, an import or a `mut` only one platform uses.
#
# Not covered: clippy's own lints (Debian's clippy for this rustc is not
# packaged; clippy runs on Linux in .ci/run), and running anything.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=rust-1.85.sh
source .ci/rust-1.85.sh
need_std_sources
packages=("${library_packages[@]}")
export PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
# `-Z` flags on a stable compiler.
export RUSTC_BOOTSTRAP=1 RUSTFLAGS="-D warnings"
# A target directory of its own: artifacts of two compilers do not mix.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/cross"
for target in x86_64-pc-windows-msvc x86_64-apple-darwin aarch64-apple-darwin; do
  echo "== $target" >&2
  /usr/bin/cargo check --locked -Zbuild-std=std,panic_abort --target "$target" \
    "${packages[@]}" --all-features
done
