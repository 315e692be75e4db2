//! The test kit's `claude-proto-testkit-cli`, built as a binary of this
//! package so the real-CLI suites can name it
//! (`env!("CARGO_BIN_EXE_testkit-cli")`): it records the real CLI as a
//! wrapper, and replays the recordings as the CLI.

fn main() -> std::process::ExitCode {
    let code = claude_proto_testkit::child::main_from_env();
    std::process::ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}
