//! A turn read as typed items, and a turn given up at its deadline: what
//! each adapter's `TurnStream::next_item` and `finish_by` must show
//! against the test kit's CLI.

use std::path::Path;

use claude_proto::model::tools::ToolInput;
use claude_proto::options::Options;
use claude_proto_host::{Error, Turn, TurnItem};
use claude_proto_testkit::child::serve_options;
use claude_proto_testkit::{Behaviour, Extra, Policy};
use serde_json::json;

/// Options for a CLI whose turns stream three deltas, run `Bash` (`ls`)
/// and answer: every kind of item a plain turn has.
pub fn items_options(cli: &Path) -> Options {
    let behaviour = Behaviour::default()
        .with_stream(3, 8, std::time::Duration::ZERO)
        .with_extra(Extra::Tool {
            tool_name: "Bash".into(),
            input: json!({"command": "ls"}),
        });
    serve_options(
        Options::default().include_partial_messages(true),
        cli,
        &behaviour,
    )
}

/// Options for the kit's CLI as it behaves by default: each prompt
/// echoed in one turn; [`HELD_PROMPT`] holds a turn until interrupted.
pub fn plain_options(cli: &Path) -> Options {
    serve_options(Options::default(), cli, &Behaviour::default())
}

/// Options for a CLI whose every turn starts with 5,000 lines written
/// as fast as the pipe takes them: a reader that never has to wait.
pub fn flood_options(cli: &Path) -> Options {
    serve_options(
        Options::default(),
        cli,
        &Behaviour::default().with_flood(5_000, 0),
    )
}

/// How many deltas a turn of [`unstoppable_options`]' CLI streams.
pub const UNSTOPPABLE_DELTAS: usize = 20_000;

/// Options for a CLI that ignores `interrupt` (no answer, no effect) and
/// whose turns stream [`UNSTOPPABLE_DELTAS`] deltas as fast as the pipe
/// takes them before they end: a turn that goes on long after its
/// deadline's interrupt.
pub fn unstoppable_options(cli: &Path) -> Options {
    let behaviour = Behaviour::default()
        .with_stream(UNSTOPPABLE_DELTAS, 8, std::time::Duration::ZERO)
        .with_policy("interrupt", Policy::Never);
    serve_options(
        Options::default().include_partial_messages(true),
        cli,
        &behaviour,
    )
}

/// Checks what `finish_within(ZERO)` gives for a turn of
/// [`unstoppable_options`]' CLI: the turn, ended after its deadline,
/// without the lines read after the deadline (only counted), so a CLI
/// that goes on writing after the interrupt grows no memory.
pub fn check_nothing_kept_after_deadline(outcome: Result<Turn, Error>) {
    let Err(Error::DeadlinePassed { turn: Some(turn) }) = outcome else {
        panic!("the deadline passed and the CLI ended the turn later: {outcome:?}");
    };
    assert_eq!(
        turn.messages.len(),
        1,
        "the result alone is kept: {} messages",
        turn.messages.len()
    );
    assert!(
        turn.skipped_after_deadline >= UNSTOPPABLE_DELTAS,
        "every delta was read and counted: {}",
        turn.skipped_after_deadline
    );
    assert!(!turn.is_error(), "the CLI ignored the interrupt");
}

/// Checks a held turn read item by item under a deadline: the items the
/// CLI wrote before and after the interrupt, the interrupted turn's result
/// last; then `finish` says the deadline passed, with that turn.
pub fn check_streamed_past_deadline(
    items: &[TurnItem],
    deadline_passed: bool,
    outcome: Result<Turn, Error>,
) {
    let names: Vec<&str> = items.iter().map(name).collect();
    assert!(deadline_passed, "the stream says so: {names:?}");
    assert!(
        matches!(items.first(), Some(TurnItem::Init(_))),
        "{names:?}"
    );
    assert!(
        matches!(items.last(), Some(TurnItem::Result(r)) if !r.is_success()),
        "the interrupted turn's result is the last item: {names:?}"
    );
    check_deadline_passed(outcome);
}

/// Checks what `finish_by` gives for a turn whose deadline passed while
/// events kept coming: the deadline, not the turn's end.
pub fn check_deadline_kept(outcome: Result<Turn, Error>) {
    assert!(
        matches!(outcome, Err(Error::DeadlinePassed { .. })),
        "the deadline holds while events keep coming: {outcome:?}"
    );
}

/// The prompt of a turn the kit's CLI holds for an hour: it ends only
/// when interrupted.
pub const HELD_PROMPT: &str = r#"#extras [{"pause_ms": 3600000}]"#;

/// Checks the items of one turn of [`items_options`]' CLI, `prompt` its
/// prompt: `system/init` first, the deltas, the tool call typed, its
/// result quoting it, the answer, and the result last.
pub fn check_items(items: &[TurnItem], prompt: &str) {
    let names: Vec<&str> = items.iter().map(name).collect();
    assert!(
        matches!(items.first(), Some(TurnItem::Init(_))),
        "{names:?}"
    );
    assert!(
        matches!(items.last(), Some(TurnItem::Result(r)) if r.is_success()),
        "the result is last: {names:?}"
    );
    let deltas = names.iter().filter(|n| **n == "TextDelta").count();
    assert!(deltas >= 3, "the streamed deltas: {names:?}");
    let tool_use = items.iter().find_map(|item| match item {
        TurnItem::ToolUse(tool) => Some(tool),
        _ => None,
    });
    let tool_use = tool_use.unwrap_or_else(|| panic!("a tool call: {names:?}"));
    assert_eq!(tool_use.name, "Bash");
    match tool_use.typed_input() {
        ToolInput::Bash(bash) => assert_eq!(bash.command, "ls"),
        other => panic!("Bash's input is typed: {other:?}"),
    }
    let result = items.iter().find_map(|item| match item {
        TurnItem::ToolResult(result) => Some(result),
        _ => None,
    });
    let result = result.unwrap_or_else(|| panic!("a tool result: {names:?}"));
    assert_eq!(
        result.tool_use_id, tool_use.id,
        "the result quotes its call"
    );
    assert!(!result.is_error());
    let answer = format!("echo: {prompt}");
    assert!(
        items
            .iter()
            .any(|item| matches!(item, TurnItem::Text(text) if *text == answer)),
        "the answer's text: {names:?}"
    );
    let positions = ["Init", "ToolUse", "ToolResult", "Text", "Result"]
        .map(|kind| names.iter().position(|n| *n == kind));
    assert!(positions.is_sorted(), "in the order they came: {names:?}");
}

/// Checks the costs of two consecutive turns: each turn's own cost is the
/// difference of the running totals.
pub fn check_costs(first: &Turn, second: &Turn) {
    assert!(
        first.total_cost_usd() > 0.0,
        "the kit's CLI charges each call"
    );
    assert_eq!(
        first.cost_usd(),
        first.total_cost_usd(),
        "the first turn's own"
    );
    assert!(second.total_cost_usd() > first.total_cost_usd());
    let own = second.total_cost_usd() - first.total_cost_usd();
    assert!(
        (second.cost_usd() - own).abs() < 1e-12,
        "{} vs {own}",
        second.cost_usd()
    );
}

/// Checks what `finish_by` gives for a held turn: the deadline passed, the
/// turn was interrupted and read to its end.
pub fn check_deadline_passed(outcome: Result<Turn, Error>) {
    match outcome {
        Err(error @ Error::DeadlinePassed { turn: Some(_) }) => {
            assert_eq!(
                error.to_string(),
                "the turn did not end by its deadline and was interrupted; \
                 it has ended and the session is ready for the next prompt"
            );
            let Error::DeadlinePassed { turn: Some(turn) } = error else {
                unreachable!("matched above")
            };
            assert!(turn.is_error(), "an interrupted turn: {:?}", turn.result);
        }
        other => panic!("the deadline passed and the turn was read to its end: {other:?}"),
    }
}

fn name(item: &TurnItem) -> &'static str {
    match item {
        TurnItem::Init(_) => "Init",
        TurnItem::TextDelta(_) => "TextDelta",
        TurnItem::ThinkingDelta(_) => "ThinkingDelta",
        TurnItem::Text(_) => "Text",
        TurnItem::Thinking(_) => "Thinking",
        TurnItem::ToolUse(_) => "ToolUse",
        TurnItem::ToolResult(_) => "ToolResult",
        TurnItem::ApiRetry(_) => "ApiRetry",
        TurnItem::Result(_) => "Result",
        _ => "Other",
    }
}
