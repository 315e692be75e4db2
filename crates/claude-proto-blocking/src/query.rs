//! One question in one call: the one-shot run, as the official SDKs'
//! `query` runs it, on a fresh session or on a builder's.

use std::time::Duration;

use claude_proto::options::Options;
use claude_proto_host::{Error, Turn};

use crate::builder::ClaudeBuilder;
use crate::client::Claude;

/// Asks the CLI one question in one call: spawns it with `options`, sends
/// `prompt`, collects its turn, and ends the run as the official SDKs'
/// one-shot runs end it ([`Controller::end_input_at_run_end`](crate::Controller::end_input_at_run_end)): with
/// nothing to call back, stdin closes right after the prompt; otherwise it
/// stays open, and a background agent's follow-up turns have their hooks,
/// permission prompts and tool calls answered, until the CLI reports the
/// session idle (or `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` passes between
/// turns). It returns once the CLI has exited.
///
/// The [`Turn`] is the prompt's: it carries the answer ([`Turn::text`])
/// and its cost ([`Turn::cost_usd`]; [`Turn::total_cost_usd`] is the session's total at that
/// point). Follow-up turns run but are not returned: read them with a
/// [`Claude`] session and [`Controller::end_input_at_run_end`](crate::Controller::end_input_at_run_end). A failure
/// to start is [`Error::Spawn`], so one error type covers the whole call;
/// a session that ends before the answer is [`Error::Ended`] with the exit
/// status and stderr.
///
/// ```no_run
/// # fn demo() -> Result<(), claude_proto_blocking::Error> {
/// use claude_proto_blocking::{Options, query};
///
/// let turn = query("What is 2 + 2?", Options::default())?;
/// println!("{}", turn.text().unwrap_or_default());
/// # Ok(()) }
/// ```
pub fn query(prompt: impl Into<String>, options: Options) -> Result<Turn, Error> {
    ClaudeBuilder::new(options).query(prompt)
}

impl ClaudeBuilder {
    /// Asks the CLI one question with this builder's handlers: spawns it,
    /// sends `prompt`, collects its turn and ends the run as the official
    /// SDKs' one-shot `query` does (see [`query`](crate::query)): a
    /// background agent's follow-up turns have their hooks, permission
    /// prompts and tool calls answered until the CLI reports the session
    /// idle. Returns the prompt's turn once the CLI has exited.
    pub fn query(self, prompt: impl Into<String>) -> Result<Turn, Error> {
        let ceiling = claude_proto_process::run_end_ceiling(&self.settings.options);
        let claude = self.spawn()?;
        one_shot(claude, prompt.into(), ceiling)
    }
}

/// The one-shot run on a started session: the prompt, its turn, the rest
/// of the run (follow-up turns served until the run ends and the CLI
/// exits), then the exit report.
pub(crate) fn one_shot(
    mut claude: Claude,
    prompt: String,
    ceiling: Option<Duration>,
) -> Result<Turn, Error> {
    let controller = claude.controller();
    let turn = match claude.query(prompt) {
        Ok(stream) => {
            // If the session has already ended, the turn says so.
            let _ = controller.end_input_at_run_end(ceiling);
            stream.finish()
        }
        Err(error) => Err(error),
    };
    if turn.is_ok() {
        // The rest of the run: follow-up turns, until the CLI exits.
        while claude.next_event().is_some() {}
    }
    let closed = claude.close();
    let turn = turn?;
    closed?;
    Ok(turn)
}
