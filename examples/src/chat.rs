//! The `chat` example's pure parts: what a line typed at its prompt means,
//! what counts as a "yes" to a permission question, and its offline
//! stand-in for the model.

use std::time::Duration;

use claude_proto_testkit::model_api::{ApiRequest, Reply};
use serde_json::json;

use crate::{last_prompt, last_tool_result, last_user_message};

/// A line typed at the chat's prompt, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input<'a> {
    /// An empty line.
    Nothing,
    /// `/quit` or `/exit`.
    Quit,
    /// `/model NAME` (empty: back to the default model).
    Model(&'a str),
    /// `/mode MODE`.
    Mode(&'a str),
    /// Another `/command`.
    UnknownCommand,
    /// A lone `y`, `n`, `yes` or `no` while no permission question is
    /// pending: most likely meant for a question that never came (the CLI
    /// asks only for tools its permission mode and rules do not already
    /// allow), so it is held back, not sent as a prompt.
    StrayAnswer(&'a str),
    /// A prompt for the model.
    Prompt(&'a str),
}

/// Reads `line`, typed at the prompt (no permission question pending).
/// `held` is the stray answer held back just before: typed again, it is
/// sent as a prompt after all.
pub fn read_input<'a>(line: &'a str, held: Option<&str>) -> Input<'a> {
    let line = line.trim();
    let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
    match command {
        "" => Input::Nothing,
        "/quit" | "/exit" => Input::Quit,
        "/model" => Input::Model(rest.trim()),
        "/mode" => Input::Mode(rest.trim()),
        _ if command.starts_with('/') => Input::UnknownCommand,
        _ if is_yes_or_no(line) && held != Some(line) => Input::StrayAnswer(line),
        _ => Input::Prompt(line),
    }
}

/// `true` if `answer`, typed at a permission question, allows the tool:
/// `y` or `yes`, in any case.
pub fn is_yes(answer: &str) -> bool {
    let answer = answer.trim();
    answer.eq_ignore_ascii_case("y") || answer.eq_ignore_ascii_case("yes")
}

fn is_yes_or_no(line: &str) -> bool {
    is_yes(line) || line.eq_ignore_ascii_case("n") || line.eq_ignore_ascii_case("no")
}

/// The offline stand-in for the model: lists the files (`ls -la`, which
/// the CLI runs without asking), writes a note (`echo … >
/// offline-note.txt`, which it asks permission for), asks a question, or
/// echoes.
pub fn model(request: &ApiRequest) -> Reply {
    if last_user_message(request).is_none() {
        return Reply::text("(offline stand-in) I received no user message.");
    }
    if last_tool_result(request).is_some() {
        return Reply::text("Done: that is what the tool returned. (offline stand-in)")
            .slowly(6, Duration::from_millis(40));
    }
    let prompt = last_prompt(request);
    let lower = prompt.to_lowercase();
    if lower.contains("ask me") {
        Reply::tool_use(
            "AskUserQuestion",
            json!({"questions": [{"question": "Which color do you like best?", "header": "Color",
                   "multiSelect": false, "options": [
                       {"label": "Red", "description": "Warm"},
                       {"label": "Blue", "description": "Cool"}]}]}),
        )
        .with_text("Let me ask you something.")
    } else if lower.contains("note") {
        Reply::tool_use(
            "Bash",
            json!({"command": "echo 'hello from the offline stand-in' > offline-note.txt",
                   "description": "Write a note"}),
        )
        .with_text("I will write a note into offline-note.txt.")
    } else if lower.contains("file") || lower.contains(" ls") || lower.starts_with("ls") {
        Reply::tool_use(
            "Bash",
            json!({"command": "ls -la", "description": "List the files"}),
        )
        .with_text("Let me look at the files here.")
    } else {
        Reply::text(format!(
            "This is the offline stand-in for the model, so I can only echo: \"{}\". \
             Ask me to list the files (a tool call), to write a note (a permission prompt), \
             or to ask me something (a question for you).",
            prompt.trim()
        ))
        .slowly(12, Duration::from_millis(40))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_prompts_are_told_apart() {
        assert_eq!(read_input("  ", None), Input::Nothing);
        assert_eq!(read_input("/quit", None), Input::Quit);
        assert_eq!(read_input("/exit", None), Input::Quit);
        assert_eq!(read_input("/model  opus ", None), Input::Model("opus"));
        assert_eq!(read_input("/model", None), Input::Model(""));
        assert_eq!(read_input("/mode plan", None), Input::Mode("plan"));
        assert_eq!(read_input("/help", None), Input::UnknownCommand);
        assert_eq!(
            read_input(" list the files ", None),
            Input::Prompt("list the files")
        );
    }

    /// The bug: `ls -la` ran without a question, and the `y` typed for it
    /// went to the model as the next prompt.
    #[test]
    fn a_lone_yes_or_no_with_no_question_pending_is_not_a_prompt() {
        for answer in ["y", "Y", "n", "N", "yes", "YES", "no", "No", " y "] {
            assert_eq!(
                read_input(answer, None),
                Input::StrayAnswer(answer.trim()),
                "{answer:?}"
            );
        }
        // Words that merely start like one are prompts.
        assert_eq!(read_input("yes please", None), Input::Prompt("yes please"));
        assert_eq!(read_input("nope", None), Input::Prompt("nope"));
    }

    #[test]
    fn a_stray_answer_typed_again_is_sent_after_all() {
        assert_eq!(read_input("y", Some("y")), Input::Prompt("y"));
        // Only the same answer: `n` after a held `y` is held in its turn.
        assert_eq!(read_input("n", Some("y")), Input::StrayAnswer("n"));
    }

    #[test]
    fn only_y_or_yes_allows_a_tool() {
        for yes in ["y", "Y", "yes", "Yes", " YES "] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for other in ["", "n", "no", "yeah", "ok", "y y"] {
            assert!(!is_yes(other), "{other:?}");
        }
    }
}
