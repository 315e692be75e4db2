#!/usr/bin/env bash
# Sourced by .ci/release-check.sh, .ci/msrv.sh, .ci/cross.sh and .ci/wine.sh: Debian bookworm's
# packaged Rust 1.85 (rustc-web, pinned), which installs beside the rustup
# toolchain as /usr/bin/cargo and /usr/bin/rustc, and the library crates
# they check. `need_std_sources` adds the standard library's sources
# (rust-web-src), which `-Zbuild-std` builds a target's std from, and
# `need_clippy` its clippy (rust-web-clippy).

rust_185_version=1.85.0+dfsg3-1~deb12u3
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
# Another step's install (cross.sh and wine.sh may run at once) is waited
# for, not failed on.
debian_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=600 -y -qq "$@" >&2
}
if ! /usr/bin/cargo --version 2>/dev/null | grep -q '^cargo 1\.85\.'; then
  echo "installing Rust 1.85 from Debian (rustc-web $rust_185_version)" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  # The pinned build; should the archive have replaced it with a later
  # 1.85 build, that one (checked below).
  debian_install "rustc-web=$rust_185_version" "cargo-web=$rust_185_version" \
    "libstd-rust-web-dev=$rust_185_version" ||
    debian_install rustc-web cargo-web libstd-rust-web-dev
fi
if ! /usr/bin/cargo --version | grep -q '^cargo 1\.85\.'; then
  echo "Debian's cargo-web is not 1.85: $(/usr/bin/cargo --version)" >&2
  exit 1
fi
/usr/bin/cargo --version
/usr/bin/rustc --version

need_clippy() {
  if [ ! -x /usr/bin/cargo-clippy ]; then
    echo "installing clippy for Rust 1.85 (rust-web-clippy $rust_185_version)" >&2
    # Pinned only: an unpinned install would take today's clippy and,
    # with it, today's rustc-web in place of 1.85.
    debian_install "rust-web-clippy=$rust_185_version"
  fi
  if ! /usr/bin/cargo-clippy --version | grep -q '^clippy 0\.1\.85'; then
    echo "Debian's rust-web-clippy is not 1.85: $(/usr/bin/cargo-clippy --version)" >&2
    exit 1
  fi
}

need_std_sources() {
  if [ ! -f /usr/lib/rustlib/src/rust/library/Cargo.lock ]; then
    echo "installing the standard library's sources (rust-web-src $rust_185_version)" >&2
    # Pinned only: another version's sources do not build with 1.85.
    debian_install "rust-web-src=$rust_185_version"
  fi
}

# The library crates: all but claude-proto-rmcp (rmcp needs Rust 1.88, its
# own declared minimum, which no package of this distribution offers) and
# the tests, examples and bench packages, which depend on it.
library_packages=(-p claude-proto -p claude-proto-host -p claude-proto-process -p claude-proto-adapter
  -p claude-proto-async -p claude-proto-tokio -p claude-proto-blocking -p claude-proto-async-std
  -p claude-proto-sessions -p claude-proto-testkit)
