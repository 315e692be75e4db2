//! What the stand-in answers to one model call.

use std::time::Duration;

use serde_json::Value;

/// What the stand-in answers to one `POST /v1/messages`: an assistant
/// message (text, tool uses, or both), streamed as server-sent events when
/// the request asks for a stream and sent as plain JSON otherwise; or an
/// HTTP error with an Anthropic error body.
///
/// Build one with a constructor ([`text`](Self::text),
/// [`tool_use`](Self::tool_use), [`tool_uses`](Self::tool_uses), the errors
/// [`error`](Self::error), [`overloaded`](Self::overloaded),
/// [`rate_limited`](Self::rate_limited), [`server_error`](Self::server_error),
/// [`invalid_request`](Self::invalid_request)) and adjust it with the
/// `with_*`/`and_*` methods. A script returns it for each request.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a reply does nothing until a script returns it"]
pub struct Reply {
    pub(crate) body: Body,
    /// Extra response headers, after the stand-in's own.
    pub(crate) headers: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    Message(Message),
    Error {
        status: u16,
        kind: String,
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub(crate) text: Option<String>,
    pub(crate) tool_uses: Vec<(String, Value)>,
    pub(crate) stop_reason: Option<String>,
    pub(crate) text_deltas: usize,
    pub(crate) delta_delay: Duration,
}

impl Message {
    pub(crate) fn stop_reason(&self) -> &str {
        match &self.stop_reason {
            Some(reason) => reason,
            None if self.tool_uses.is_empty() => "end_turn",
            None => "tool_use",
        }
    }
}

/// How many `text_delta`s a text is cut into unless told otherwise: more
/// than one, so a test sees the text arrive in pieces.
const DEFAULT_TEXT_DELTAS: usize = 2;

impl Reply {
    fn message(text: Option<String>, tool_uses: Vec<(String, Value)>) -> Self {
        Self {
            body: Body::Message(Message {
                text,
                tool_uses,
                stop_reason: None,
                text_deltas: DEFAULT_TEXT_DELTAS,
                delta_delay: Duration::ZERO,
            }),
            headers: Vec::new(),
        }
    }

    /// A text answer, `stop_reason: "end_turn"`, streamed in two
    /// `text_delta`s (see [`in_deltas`](Self::in_deltas)).
    pub fn text(text: impl Into<String>) -> Self {
        Self::message(Some(text.into()), Vec::new())
    }

    /// One `tool_use` block calling tool `name` with `input`,
    /// `stop_reason: "tool_use"`. The CLI runs the tool (asking the
    /// program's permission handler first unless the tool is allowed) and
    /// sends its result in the next request
    /// ([`ApiRequest::tool_results`](super::ApiRequest::tool_results)).
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Self::message(None, vec![(name.into(), input)])
    }

    /// Several `tool_use` blocks in one message (parallel tool use),
    /// `stop_reason: "tool_use"`. Their ids are `toolu_mock_NNNN` for the
    /// first and `toolu_mock_NNNN_K` for the `K`-th after it.
    pub fn tool_uses<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        Self::message(
            None,
            calls
                .into_iter()
                .map(|(name, input)| (name.into(), input))
                .collect(),
        )
    }

    /// An HTTP error: status `status` and the body
    /// `{"type":"error","error":{"type":kind,"message":message}}`, the shape
    /// the Anthropic API answers errors with.
    ///
    /// The CLI retries some statuses and resends a 400 without its
    /// experimental betas; the options of
    /// [`ModelApi::options`](super::ModelApi::options) turn both off, so
    /// each error reply ends the turn. See the [module docs](super).
    pub fn error(status: u16, kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            body: Body::Error {
                status,
                kind: kind.into(),
                message: message.into(),
            },
            headers: Vec::new(),
        }
    }

    /// 529 `overloaded_error` ("Overloaded"): what the API answers when it
    /// is overloaded. The CLI retries it (when retries are on), at most
    /// three calls in a row.
    pub fn overloaded() -> Self {
        Self::error(529, "overloaded_error", "Overloaded")
    }

    /// 429 `rate_limit_error` with a `retry-after` header of `retry_after`
    /// in whole seconds (rounded up). The CLI waits at least that long
    /// before it retries (when retries are on), and gives up at once when
    /// it is more than a minute.
    pub fn rate_limited(retry_after: Duration) -> Self {
        let seconds = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        Self::error(
            429,
            "rate_limit_error",
            "This request would exceed your organization's rate limit (stand-in)",
        )
        .with_header("retry-after", seconds.to_string())
    }

    /// 500 `api_error` ("Internal server error"). The CLI retries it (when
    /// retries are on).
    pub fn server_error() -> Self {
        Self::error(500, "api_error", "Internal server error")
    }

    /// 400 `invalid_request_error` with `message`. Under
    /// [`ModelApi::options`](super::ModelApi::options) the turn ends with
    /// an error result carrying `message`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::error(400, "invalid_request_error", message)
    }

    /// Puts a text block first (replacing an earlier text), before the
    /// tool uses. No effect on an error reply.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let Body::Message(message) = &mut self.body {
            message.text = Some(text.into());
        }
        self
    }

    /// Adds one more `tool_use` block after the others. No effect on an
    /// error reply.
    pub fn and_tool_use(mut self, name: impl Into<String>, input: Value) -> Self {
        if let Body::Message(message) = &mut self.body {
            message.tool_uses.push((name.into(), input));
        }
        self
    }

    /// Streams the text in `deltas` `text_delta` events (at least 1; cut at
    /// character boundaries, so fewer when the text is shorter).
    pub fn in_deltas(mut self, deltas: usize) -> Self {
        if let Body::Message(message) = &mut self.body {
            message.text_deltas = deltas.max(1);
        }
        self
    }

    /// Streams the text in `deltas` pieces with a pause of `delay` before
    /// each: a slow stream, for tests that interrupt a turn mid-answer.
    /// Dropping the [`ModelApi`](super::ModelApi) cuts such a stream short.
    pub fn slowly(mut self, deltas: usize, delay: Duration) -> Self {
        if let Body::Message(message) = &mut self.body {
            message.text_deltas = deltas.max(1);
            message.delta_delay = delay;
        }
        self
    }

    /// Ends the message with this `stop_reason` (`"max_tokens"`,
    /// `"refusal"`, ...) instead of `"tool_use"` or `"end_turn"`. No effect
    /// on an error reply.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        if let Body::Message(message) = &mut self.body {
            message.stop_reason = Some(reason.into());
        }
        self
    }

    /// Adds a response header (sent after the stand-in's own), such as
    /// `retry-after` or `anthropic-ratelimit-*`.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The HTTP status this reply is answered with (200 for a message).
    pub fn status(&self) -> u16 {
        match &self.body {
            Body::Message(_) => 200,
            Body::Error { status, .. } => *status,
        }
    }

    /// `true` for an error reply.
    pub fn is_error(&self) -> bool {
        matches!(self.body, Body::Error { .. })
    }
}
