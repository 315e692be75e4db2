//! OS process plumbing shared by the `claude-proto` adapters.
//!
//! Everything an adapter needs from the operating system, whatever its
//! runtime: finding the `claude` executable and building its command from
//! [`Options`], starting it with piped streams and watching it until it is
//! reaped ([`spawn`]), signals, the user's stderr callback with its panics
//! contained, and the settings every builder collects, with the options
//! every builder takes written once ([`Configure`]). The decisions
//! (when to read, write, signal, what to answer) are the sans-IO host's,
//! in [`claude_proto_host`].
#![deny(missing_docs)]

mod child;
mod command;
mod configure;
pub mod handlers;
mod import;
pub mod log;
pub mod mcp_endpoint;
mod pipe;
mod private;
mod resume;
pub mod sessions;
mod settings;
mod signal;
mod spawn;
mod stderr;
mod store;
mod trace_context;
mod unwind;

pub mod prelude;

pub use command::{Launch, SystemLookup, build_command, cli_env, locate_cli, run_end_ceiling};
pub use configure::Configure;
pub use import::{ImportError, ImportReport, import_transcripts};
pub use mcp_endpoint::{McpEndpoint, McpOutlet, McpReply, mcp_answer_from_cli, mcp_message_to_cli};
pub use pipe::{PipeFd, Stop, StoppableRead, StoppableWrite, is_stopped};
pub use private::PrivateDir;
pub use resume::{Prepared, ResumeDir, load_timed_out, prepare, with_deadline};
pub use settings::{HookOptions, Settings, ShutdownPolicy};
pub use signal::{process_exit, terminate};
pub use spawn::{ProcessHandle, Spawned, spawn};
pub use stderr::{MAX_STDERR_LINE, StderrCallback, StderrLines};
pub use store::{StoreSettings, config_dir, run_append};
pub use unwind::{CatchUnwind, panic_message};

pub use claude_proto::options::Options;
pub use claude_proto_host as host;
pub use claude_proto_store as session_store;
