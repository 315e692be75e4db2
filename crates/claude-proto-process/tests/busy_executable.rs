//! A launcher script still open for writing is refused by the kernel as
//! "text file busy" (ETXTBSY). The start is tried again for a short
//! while, as that refusal usually lasts only until another thread's fork
//! executes; a script that stays open fails with the error named, within
//! that bound.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto_host::SpawnError;
use claude_proto_process::{Options, spawn};

mod common;
use common::Scratch;

#[test]
fn a_script_held_open_for_writing_fails_as_busy() {
    let scratch = Scratch::with_cli("busy", "held", "#!/bin/sh\ncat > /dev/null\n");
    let writer = std::fs::OpenOptions::new()
        .append(true)
        .open(scratch.cli())
        .unwrap();
    let error = spawn(&Options::default().cli_path(scratch.cli())).unwrap_err();
    match error {
        SpawnError::Spawn { program, source } => {
            assert_eq!(program, scratch.cli());
            assert_eq!(source.kind(), std::io::ErrorKind::ExecutableFileBusy);
        }
        other => panic!("expected a busy executable, got {other:?}"),
    }
    drop(writer);
    // Closed: the same script now starts.
    let spawned = spawn(&Options::default().cli_path(scratch.cli())).unwrap();
    drop(spawned);
}
