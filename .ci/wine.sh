#!/usr/bin/env bash
# What can run of our tests on Windows, built for it and run under Wine:
# Debian bookworm's Rust 1.85 (.ci/rust-1.85.sh) builds the
# x86_64-pc-windows-gnu standard library from its sources with
# `-Zbuild-std`, mingw-w64 links, Wine 8.0 runs.
#
# Three gaps of this toolchain are filled here, none of them in our code:
# - `-Zbuild-std` does not build the target's self-contained start objects
#   (rsbegin.o, rsend.o), which rustc's mingw link line names: they are
#   compiled from the standard library's own sources (rtstartup) and the
#   linker runs where they are.
# - Rust's std (1.78 and later) takes its random seeds from
#   bcryptprimitives.dll's ProcessPrng, which Wine 8.0 lacks: a stand-in
#   serving it from RtlGenRandom (.ci/wine/bcryptprimitives.c) is put
#   beside the test binaries, where Windows looks for a DLL first.
# - Wine needs a prefix: a private one under the target directory.
#
# What runs is listed below, with what it covers: the core's, the host's,
# the test kit's, the process crate's unit tests and the sessions crate's
# suites. Not the conformance suites of tests/: that package depends on
# claude-proto-rmcp, whose Rust (1.88, rmcp's minimum) this distribution
# does not package.
#
# Usage: bash .ci/wine.sh          # build (if needed), then run under Wine
#        bash .ci/wine.sh build    # build only (CI builds while other steps run)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
case "$mode" in
  build | run) ;;
  *)
    echo "usage: bash $0 [build|run]" >&2
    exit 2
    ;;
esac

# shellcheck source=rust-1.85.sh
source .ci/rust-1.85.sh
need_std_sources
# Debian's wine64 package puts its loader outside PATH.
wine=/usr/lib/wine/wine64
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || [ ! -x "$wine" ]; then
  # The x86_64 C toolchain alone (mingw-w64 would add i686 and C++).
  echo "installing gcc-mingw-w64-x86-64-win32 and wine64 from Debian" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  # Without wine64's recommends (the 32-bit loader, fonts): a console runs.
  debian_install --no-install-recommends gcc-mingw-w64-x86-64-win32 wine64
fi

target=x86_64-pc-windows-gnu
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/wine"
mkdir -p "$CARGO_TARGET_DIR"
CARGO_TARGET_DIR=$(cd "$CARGO_TARGET_DIR" && pwd)
crt="$CARGO_TARGET_DIR/crt"
mkdir -p "$crt"
rtstartup=/usr/lib/rustlib/src/rust/library/rtstartup
for object in rsbegin rsend; do
  RUSTC_BOOTSTRAP=1 /usr/bin/rustc --edition 2021 --target "$target" --emit=obj \
    -C panic=abort -o "$crt/$object.o" "$rtstartup/$object.rs"
done
cat >"$crt/linker" <<EOF
#!/bin/sh
# rustc names rsbegin.o and rsend.o without a directory.
cd "$crt" && exec x86_64-w64-mingw32-gcc "\$@"
EOF
chmod +x "$crt/linker"
x86_64-w64-mingw32-gcc -shared -O2 -o "$crt/bcryptprimitives.dll" .ci/wine/bcryptprimitives.c -ladvapi32

export PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$crt/linker"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine"
# What runs, in one cargo invocation, so each crate is built once (a
# separate invocation per package would unify features differently and
# build the core again for each):
# - claude-proto and claude-proto-host: every test;
# - claude-proto-process: its unit tests (the Windows command line, the Job
#   Object with real processes: the test binary plays the CLI); its
#   integration tests are Unix's;
# - claude-proto-testkit: every test: its engine, cassettes, Messages API
#   stand-in, and its scripted CLI as a Windows process of its own, driven
#   through the tokio and blocking adapters (spawn, pipes, the Job Object,
#   exit codes, the close sequence, as a session meets them on Windows);
# - claude-proto-sessions: sessions on disk and in stores on a Windows file
#   system (its PostgreSQL suite finds no server here and says so).
suites=(-p claude-proto -p claude-proto-host -p claude-proto-process -p claude-proto-testkit
  -p claude-proto-sessions --lib --tests)
# Left out, for what Wine 8.0 does that Windows may not (only Windows can
# tell):
# - a path over 260 characters, whose canonicalize fails with
#   ERROR_MORE_DATA;
# - a title appended while another handle appends lines: under Wine two
#   appending handles can overwrite each other (seen here, now and then);
#   the sessions code, as the CLI's, counts on appends landing whole.
left_out=(
  --skip a_long_project_path_is_found_whatever_hash_the_cli_used
  --skip titles_and_tags_never_break_a_transcript_being_written
)

# Built first, so that the DLL stand-in is beside the test binaries and
# the kit's scripted CLI before anything runs.
/usr/bin/cargo test --locked -Zbuild-std --target "$target" "${suites[@]}" --no-run
cp "$crt/bcryptprimitives.dll" "$CARGO_TARGET_DIR/$target/debug/deps/"
cp "$crt/bcryptprimitives.dll" "$CARGO_TARGET_DIR/$target/debug/"
export WINEPREFIX="$CARGO_TARGET_DIR/prefix" WINEDEBUG=-all
wineserver=/usr/lib/wine/wineserver
# Whatever a failed test leaves running in the prefix goes with this
# script, and the wineserver with it; a server still going from an
# earlier run (it lingers after its last client) is waited out first, or
# its closing resets the first clients of this run.
"$wineserver" -k 2>/dev/null || :
"$wineserver" -w 2>/dev/null || :
trap '"$wineserver" -k 2>/dev/null || :; "$wineserver" -w 2>/dev/null || :' EXIT
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  # No display, no Mono or Gecko prompts: a console prefix.
  if ! WINEDLLOVERRIDES="mscoree,mshtml=" "$wine" wineboot --init >"$CARGO_TARGET_DIR/wineboot.log" 2>&1; then
    cat "$CARGO_TARGET_DIR/wineboot.log" >&2
    exit 1
  fi
fi
if [ "$mode" = build ]; then
  echo "built for $target, and a Wine prefix made; run them with: bash .ci/wine.sh"
  exit 0
fi

# What .ci/run exported for the Linux suites names Linux programs: the
# real CLI, the kit's CLI built for Linux, the PostgreSQL server. Here the
# kit's tests find their own Windows build, and those that need the real
# CLI skip, which under CI they would refuse to do: CI is off for these
# runs.
unset CLAUDE_BIN CLAUDE_PROTO_TESTKIT_CLI CLAUDE_PROTO_TEST_POSTGRES SIDE_BY_SIDE_PYTHON
export CI=false
/usr/bin/cargo test --locked -Zbuild-std --target "$target" "${suites[@]}" --no-fail-fast -- "${left_out[@]}"
