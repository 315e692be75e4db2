//! The stand-in's limits: how many model calls it answers, how large a
//! request it reads, how many other requests it records.

/// After this many model calls (`POST /v1/messages`) a [`ModelApi`]
/// started with [`start`](super::ModelApi::start) or
/// [`turns`](super::ModelApi::turns) answers every further one with a 400:
/// a script that makes the CLI loop fails the turn instead of hanging the
/// test.
///
/// [`ModelApi`]: super::ModelApi
pub const MAX_MESSAGES_REQUESTS: usize = 40;

/// The largest request head, or body, the stand-in reads; a larger one is
/// answered 413 without being read.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// How many requests that are not model calls answered by the script (the
/// 404s, the refused ones, model calls past the limit) a [`ModelApi`]
/// records; later ones are answered as usual but not recorded in
/// [`ModelApi::requests`]. The model calls the script answers are all
/// recorded (there are at most the limit of them).
///
/// [`ModelApi`]: super::ModelApi
/// [`ModelApi::requests`]: super::ModelApi::requests
pub const MAX_RECORDED_OTHER_REQUESTS: usize = 256;
