//! A turn's events as typed items: what a reader matches on.

use std::collections::VecDeque;

use claude_proto::model::content::{ContentBlock, ToolResultBlock, ToolUseBlock};
use claude_proto::model::result::ResultMessage;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::system::{ApiRetryMessage, InitMessage, SystemMessage};

use crate::event::Event;
use crate::turn::Turn;

/// One thing a turn yields, typed, to `match` on: what the adapters'
/// `TurnStream::next_item` returns.
///
/// An event gives as many items as it holds: an assistant message with
/// text and a tool call gives [`Text`](Self::Text) then
/// [`ToolUse`](Self::ToolUse); a user message with two tool results gives
/// two [`ToolResult`](Self::ToolResult)s. The last item of every turn is
/// its [`Result`](Self::Result), always there (see [`Turn::result`]).
/// What has no variant of its own arrives whole as [`Other`](Self::Other);
/// the stream's `message()` gives the raw line any item came from.
///
/// Typing is lazy: the turn's messages are decoded once as they are read
/// (a turn is collected from them), and items are only built for the
/// reader who asks for them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TurnItem {
    /// `system`/`init`: the session's model, tools, MCP servers and
    /// permission mode; the first message of every turn.
    Init(Box<InitMessage>),
    /// A piece of the answer as it streams (with
    /// `Options::include_partial_messages`).
    TextDelta(String),
    /// A piece of the model's reasoning as it streams (with partial
    /// messages).
    ThinkingDelta(String),
    /// A text block of an assistant message: the answer, whole.
    Text(String),
    /// A thinking block of an assistant message (may be empty when the
    /// model's reasoning is not shown).
    Thinking(String),
    /// The model asks to run a tool: [`ToolUseBlock::name`], `id`, `input`;
    /// [`ToolUseBlock::typed_input`] types the input of the built-in tools.
    ToolUse(ToolUseBlock),
    /// A tool's output as it went back to the model:
    /// [`ToolResultBlock::tool_use_id`], [`ToolResultBlock::text`] (or the
    /// blocks in `content`), [`ToolResultBlock::is_error`].
    ToolResult(ToolResultBlock),
    /// `system`/`api_retry`: an API request failed and will be retried.
    ApiRetry(ApiRetryMessage),
    /// The turn's result: the last item of the turn.
    Result(Box<ResultMessage>),
    /// Everything else, as the session handed it over: other messages
    /// (status, tasks, hooks, rate limits, stream events other than deltas,
    /// types this version does not know), and events that are not messages
    /// (a line that could not be read, a refused request, a handler that
    /// failed).
    Other(Event),
}

impl TurnItem {
    /// For adapter authors (the adapters' turn streams call it through
    /// [`TurnReader::queue_items`](crate::TurnReader::queue_items)): the
    /// items of `event`, appended to `items`. `message` is the event's
    /// message decoded (for a turn being collected, the collector's
    /// [`TurnCollector::last_message`](crate::TurnCollector::last_message),
    /// so nothing is parsed twice); `ended` is the turn if `event` ended
    /// it.
    pub fn extend(
        items: &mut VecDeque<TurnItem>,
        event: Event,
        message: Option<&StdoutMessage>,
        ended: Option<&Turn>,
    ) {
        if let Some(turn) = ended {
            if matches!(&event, Event::Message(m) if m.is_result()) {
                items.push_back(TurnItem::Result(Box::new(turn.result.clone())));
                return;
            }
        }
        let before = items.len();
        match message {
            Some(StdoutMessage::StreamEvent(stream)) => {
                if let Some(text) = stream.event.text_delta() {
                    items.push_back(TurnItem::TextDelta(text.to_owned()));
                } else if let Some(thinking) = stream.event.thinking_delta() {
                    items.push_back(TurnItem::ThinkingDelta(thinking.to_owned()));
                }
            }
            Some(StdoutMessage::Assistant(assistant)) => {
                for block in &assistant.message.content {
                    match block {
                        ContentBlock::Text(text) => {
                            items.push_back(TurnItem::Text(text.text.clone()));
                        }
                        ContentBlock::Thinking(thinking) => {
                            items.push_back(TurnItem::Thinking(thinking.thinking.clone()));
                        }
                        ContentBlock::ToolUse(tool_use) => {
                            items.push_back(TurnItem::ToolUse(tool_use.clone()));
                        }
                        _ => {}
                    }
                }
            }
            Some(StdoutMessage::User(user)) => {
                items.extend(user.tool_results().cloned().map(TurnItem::ToolResult));
            }
            Some(StdoutMessage::System(SystemMessage::Init(init))) => {
                items.push_back(TurnItem::Init(init.clone()));
            }
            Some(StdoutMessage::System(SystemMessage::ApiRetry(retry))) => {
                items.push_back(TurnItem::ApiRetry(retry.clone()));
            }
            _ => {}
        }
        if items.len() == before {
            items.push_back(TurnItem::Other(event));
        }
    }
}
