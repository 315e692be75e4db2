//! A store in a PostgreSQL database, shared by every machine that reaches
//! it: one table of entries, on the synchronous `postgres` client run on a
//! thread of the store's own.

use std::fmt;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use postgres::{Client, Config, NoTls};
use serde_json::value::RawValue;

use claude_proto::transcript::fold_summary;

use crate::SessionKey;
use crate::store::{Entry, SessionStore, SessionSummary, StoreError, StoreFuture, StoredSession};
use crate::worker::Worker;

/// How a [`PostgresStore`] names its table and bounds its waits. Start from
/// [`PostgresOptions::default`] and change what you need with the builder
/// methods.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PostgresOptions {
    /// The tables are `<table_prefix>_entries` and
    /// `<table_prefix>_summaries`. Lowercase ASCII letters,
    /// digits and `_`, starting with a letter or `_`, at most 40 bytes;
    /// `claude_proto` by default.
    pub table_prefix: String,
    /// How long to wait for the server at all: for each TCP connection
    /// attempt, and for the whole connect (startup, authentication, the
    /// session's settings). 10 s by default.
    pub connect_timeout: Duration,
    /// The server's `statement_timeout`: no statement runs longer. 30 s by
    /// default.
    pub statement_timeout: Duration,
    /// The server's `lock_timeout`: no statement waits longer for a lock.
    /// 10 s by default.
    pub lock_timeout: Duration,
    /// The server's `idle_in_transaction_session_timeout`, ending a session
    /// whose client went away mid-transaction. 60 s by default.
    pub idle_in_transaction_timeout: Duration,
    /// How long sent data may go unacknowledged before the connection is
    /// dropped (`TCP_USER_TIMEOUT`, Linux only), so a server that vanished
    /// mid-call gives an error rather than a wait. 30 s by default.
    pub tcp_user_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            table_prefix: "claude_proto".to_owned(),
            connect_timeout: Duration::from_secs(10),
            statement_timeout: Duration::from_secs(30),
            lock_timeout: Duration::from_secs(10),
            idle_in_transaction_timeout: Duration::from_secs(60),
            tcp_user_timeout: Duration::from_secs(30),
        }
    }
}

impl PostgresOptions {
    /// Sets [`table_prefix`](Self::table_prefix).
    #[must_use]
    pub fn table_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.table_prefix = prefix.into();
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets [`statement_timeout`](Self::statement_timeout).
    #[must_use]
    pub fn statement_timeout(mut self, timeout: Duration) -> Self {
        self.statement_timeout = timeout;
        self
    }

    /// Sets [`lock_timeout`](Self::lock_timeout).
    #[must_use]
    pub fn lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// Sets [`idle_in_transaction_timeout`](Self::idle_in_transaction_timeout).
    #[must_use]
    pub fn idle_in_transaction_timeout(mut self, timeout: Duration) -> Self {
        self.idle_in_transaction_timeout = timeout;
        self
    }

    /// Sets [`tcp_user_timeout`](Self::tcp_user_timeout).
    #[must_use]
    pub fn tcp_user_timeout(mut self, timeout: Duration) -> Self {
        self.tcp_user_timeout = timeout;
        self
    }

    fn check_prefix(&self) -> Result<(), StoreError> {
        let prefix = &self.table_prefix;
        let plain = prefix
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        let starts_well = prefix
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b == b'_');
        // 40 leaves room for `_entries_uuid` within PostgreSQL's 63-byte
        // identifiers.
        if plain && starts_well && prefix.len() <= 40 {
            Ok(())
        } else {
            Err(StoreError::backend(format!(
                "the table prefix `{prefix}` must be 1 to 40 of [a-z0-9_], not starting with a digit"
            )))
        }
    }
}

/// Keeps transcripts in a PostgreSQL table, for stores shared between
/// machines. What it guarantees:
///
/// - One table of entries, `<prefix>_entries` (`project_key`,
///   `session_id`, `subpath` — `''` for a main transcript — `seq
///   bigserial`, `entry json`, `mtime` in epoch milliseconds from the
///   server's `clock_timestamp()`), created if missing. `json`, not
///   `jsonb`: an entry is loaded as the very text appended.
/// - One table of summaries, `<prefix>_summaries` (`project_key`,
///   `session_id`, `mtime`, `data json`), one row per session, folded from
///   each main-transcript batch in the batch's transaction (appends to one
///   session take turns, under an advisory lock) and stamped after its
///   entries, so it is never older than them. A session without a row
///   (written by an older version) is folded whole on its next append.
/// - A batch is appended in one transaction, in order. An entry whose
///   `uuid` the key already holds is skipped (a unique index makes the
///   retry of a batch that did land harmless); entries without a `uuid`
///   are always appended.
/// - Every store on the same database and prefix sees the others'
///   appends: machines share sessions through it.
/// - A dead or unreachable server gives [`StoreError::Backend`] within the
///   timeouts of its [`PostgresOptions`], not a hang. A broken connection
///   is reopened once per call before giving up.
/// - The calls run on a thread of the store's own, in the order they are
///   made, so the futures never block the runtime polling them. The thread
///   (and the connection) end when the store is dropped.
///
/// TLS is not supported yet: use a URL the server accepts without it (a
/// local socket, a private network, or a TLS-terminating proxy).
pub struct PostgresStore {
    tables: Tables,
    worker: Worker<Connection>,
}

/// The names of a store's tables.
#[derive(Debug, Clone)]
struct Tables {
    entries: String,
    summaries: String,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("tables", &self.tables)
            .finish_non_exhaustive()
    }
}

/// The worker's state: how to connect, and the connection if open.
struct Connection {
    config: Config,
    options: PostgresOptions,
    client: Option<Client>,
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgresql://user:pass@host/db`
    /// or `host=… user=…`) with the default [`PostgresOptions`], creating
    /// the table if missing.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, PostgresOptions::default()).await
    }

    /// Like [`connect`](Self::connect), with `options`.
    pub async fn connect_with(url: &str, options: PostgresOptions) -> Result<Self, StoreError> {
        options.check_prefix()?;
        let mut config: Config = url.parse().map_err(StoreError::backend)?;
        config
            .connect_timeout(options.connect_timeout)
            .tcp_user_timeout(options.tcp_user_timeout)
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30))
            .application_name("claude-proto-sessions");
        let tables = Tables {
            entries: format!("{}_entries", options.table_prefix),
            summaries: format!("{}_summaries", options.table_prefix),
        };
        let worker = Worker::spawn(
            "claude-proto-sessions-postgres",
            Connection {
                config,
                options,
                client: None,
            },
        );
        let schema = schema_sql(&tables);
        worker
            .run(move |connection| connection.with_client(|client| client.batch_execute(&schema)))
            .await?;
        Ok(Self { tables, worker })
    }

    /// The entries' table's name, `<prefix>_entries`.
    pub fn table(&self) -> &str {
        &self.tables.entries
    }

    /// The summaries' table's name, `<prefix>_summaries`.
    pub fn summaries_table(&self) -> &str {
        &self.tables.summaries
    }

    /// Runs `job` on the worker with the open connection and this store's
    /// table names.
    fn run<T, F>(&self, job: F) -> StoreFuture<'static, T>
    where
        T: Send + 'static,
        F: Fn(&mut Client, &Tables) -> Result<T, postgres::Error> + Send + 'static,
    {
        let tables = self.tables.clone();
        self.worker
            .run(move |connection| connection.with_client(|client| job(client, &tables)))
    }
}

/// The tables and their indexes, created under an advisory lock so that
/// two stores starting at once do not race to create them.
fn schema_sql(tables: &Tables) -> String {
    let Tables {
        entries: table,
        summaries,
    } = tables;
    format!(
        r#"
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('claude-proto-sessions:{table}'));
CREATE TABLE IF NOT EXISTS "{table}" (
    project_key text NOT NULL,
    session_id text NOT NULL,
    subpath text NOT NULL DEFAULT '',
    seq bigserial PRIMARY KEY,
    entry json NOT NULL,
    mtime bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS "{table}_key" ON "{table}" (project_key, session_id, subpath, seq);
CREATE UNIQUE INDEX IF NOT EXISTS "{table}_uuid"
    ON "{table}" (project_key, session_id, subpath, (entry->>'uuid'))
    WHERE entry->>'uuid' IS NOT NULL;
CREATE TABLE IF NOT EXISTS "{summaries}" (
    project_key text NOT NULL,
    session_id text NOT NULL,
    mtime bigint NOT NULL,
    data json NOT NULL,
    PRIMARY KEY (project_key, session_id)
);
COMMIT;
"#
    )
}

impl Connection {
    /// Runs `op` on the connection, opening it first if needed. If the
    /// connection turns out broken (the server restarted, the network
    /// dropped it), opens a new one and runs `op` once more.
    fn with_client<T>(
        &mut self,
        op: impl Fn(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let reopened = self.client.is_none();
        let client = self.open()?;
        match op(client) {
            Ok(value) => Ok(value),
            Err(error) if !reopened && (error.is_closed() || client.is_closed()) => {
                self.client = None;
                let client = self.open()?;
                op(client).map_err(StoreError::backend)
            }
            Err(error) => {
                if client.is_closed() {
                    self.client = None;
                }
                Err(StoreError::backend(error))
            }
        }
    }

    fn open(&mut self) -> Result<&mut Client, StoreError> {
        if self.client.is_none() {
            self.client = Some(connect_within_timeout(&self.config, &self.options)?);
        }
        self.client
            .as_mut()
            .ok_or_else(|| StoreError::backend("no connection"))
    }
}

/// Connects and applies the session's timeouts, giving up after
/// `connect_timeout` even if the server accepted the TCP connection but
/// never answers (the client's own timeout covers only the TCP connect).
/// Given up on, the attempt goes on in its detached thread until the
/// server or the operating system closes the socket.
fn connect_within_timeout(
    config: &Config,
    options: &PostgresOptions,
) -> Result<Client, StoreError> {
    let (done, outcome) = mpsc::sync_channel(1);
    let config = config.clone();
    let settings = format!(
        "SET statement_timeout = {}; SET lock_timeout = {}; \
         SET idle_in_transaction_session_timeout = {};",
        options.statement_timeout.as_millis(),
        options.lock_timeout.as_millis(),
        options.idle_in_transaction_timeout.as_millis(),
    );
    thread::Builder::new()
        .name("claude-proto-sessions-postgres-connect".to_owned())
        .spawn(move || {
            let connected = config.connect(NoTls).and_then(|mut client| {
                client.batch_execute(&settings)?;
                Ok(client)
            });
            let _ = done.send(connected);
        })
        .map_err(|e| StoreError::backend(format!("could not start a thread to connect: {e}")))?;
    match outcome.recv_timeout(options.connect_timeout) {
        Ok(connected) => connected.map_err(StoreError::backend),
        Err(_) => Err(StoreError::backend(format!(
            "the PostgreSQL server did not answer within {:?}",
            options.connect_timeout
        ))),
    }
}

/// The key's three columns, or why it cannot be stored: PostgreSQL's text
/// cannot hold NUL, and an empty subpath would be the main transcript's.
fn columns(key: &SessionKey) -> Result<(String, String, String), StoreError> {
    let invalid = |reason: &str| StoreError::InvalidKey {
        key: key.clone(),
        reason: reason.to_owned(),
    };
    let subpath = key.subpath.clone().unwrap_or_default();
    if key.subpath.as_deref() == Some("") {
        return Err(invalid("the subpath is empty"));
    }
    if [&key.project_key, &key.session_id, &subpath]
        .iter()
        .any(|part| part.contains('\0'))
    {
        return Err(invalid("it holds NUL"));
    }
    Ok((key.project_key.clone(), key.session_id.clone(), subpath))
}

fn refused<'a, T: Send + 'a>(error: StoreError) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Err(error)))
}

impl SessionStore for PostgresStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        let (project, session, subpath) = match columns(key) {
            Ok(columns) => columns,
            Err(e) => return refused(e),
        };
        if entries.is_empty() {
            return Box::pin(std::future::ready(Ok(())));
        }
        let texts: Vec<String> = entries.iter().map(|e| e.get().to_owned()).collect();
        let key = key.clone();
        self.run(move |client, tables| {
            let table = &tables.entries;
            // One statement in one transaction; `ordinality` keeps the
            // batch's order in `seq`, and a `uuid` already held is skipped.
            let mut transaction = client.transaction()?;
            let main = subpath.is_empty();
            if main {
                // Appends to one session take turns, so each folds the
                // summary the last one wrote.
                transaction.execute(
                    "SELECT pg_advisory_xact_lock(hashtext($1))",
                    &[&format!("{}/{project}/{session}", tables.summaries)],
                )?;
            }
            let inserted = transaction.query(
                &format!(
                    r#"INSERT INTO "{table}" (project_key, session_id, subpath, entry, mtime)
                       SELECT $1, $2, $3, batch.entry::json, now_ms.ms
                       FROM unnest($4::text[]) WITH ORDINALITY AS batch(entry, n),
                            (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms) AS now_ms
                       ORDER BY batch.n
                       ON CONFLICT DO NOTHING
                       RETURNING seq, entry::text"#
                ),
                &[&project, &session, &subpath, &texts],
            )?;
            if main {
                fold_in(&mut transaction, tables, &key, inserted)?;
            }
            transaction.commit()
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        let (project, session, subpath) = match columns(key) {
            Ok(columns) => columns,
            Err(e) => return refused(e),
        };
        let texts = self.run(move |client, tables| {
            let table = &tables.entries;
            let rows = client.query(
                &format!(
                    r#"SELECT entry::text FROM "{table}"
                       WHERE project_key = $1 AND session_id = $2 AND subpath = $3
                       ORDER BY seq"#
                ),
                &[&project, &session, &subpath],
            )?;
            rows.iter().map(|row| row.try_get::<_, String>(0)).collect()
        });
        Box::pin(async move {
            let texts: Vec<String> = texts.await?;
            if texts.is_empty() {
                // Appends never store an empty batch, so no rows means
                // never appended (or deleted).
                return Ok(None);
            }
            texts
                .into_iter()
                .map(|text| RawValue::from_string(text).map_err(StoreError::backend))
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        let key = SessionKey::main(project_key, "");
        let project = match columns(&key) {
            Ok((project, _, _)) => project,
            Err(e) => return refused(e),
        };
        self.run(move |client, tables| {
            let table = &tables.entries;
            let rows = client.query(
                &format!(
                    r#"SELECT session_id, max(mtime) FROM "{table}"
                       WHERE project_key = $1 AND subpath = ''
                       GROUP BY session_id"#
                ),
                &[&project],
            )?;
            rows.iter()
                .map(|row| {
                    Ok(StoredSession {
                        session_id: row.try_get(0)?,
                        mtime: row.try_get(1)?,
                    })
                })
                .collect()
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        let key = SessionKey::main(project_key, "");
        let project = match columns(&key) {
            Ok((project, _, _)) => project,
            Err(e) => return refused(e),
        };
        self.run(move |client, tables| {
            let rows = client.query(
                &format!(
                    r#"SELECT session_id, mtime, data::text FROM "{}"
                       WHERE project_key = $1"#,
                    tables.summaries
                ),
                &[&project],
            )?;
            let mut summaries = Vec::with_capacity(rows.len());
            for row in &rows {
                // A row whose data is not an object (written by hand, say)
                // is left out: the listing loads its session instead.
                if let Some(data) = object(&row.try_get::<_, String>(2)?) {
                    summaries.push(SessionSummary {
                        session_id: row.try_get(0)?,
                        mtime: row.try_get(1)?,
                        data,
                    });
                }
            }
            Ok(summaries)
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        let (project, session, subpath) = match columns(key) {
            Ok(columns) => columns,
            Err(e) => return refused(e),
        };
        self.run(move |client, tables| {
            let table = &tables.entries;
            if subpath.is_empty() {
                // The main transcript's key deletes the whole session, its
                // summary with it.
                let mut transaction = client.transaction()?;
                for table in [table, &tables.summaries] {
                    transaction.execute(
                        &format!(
                            r#"DELETE FROM "{table}" WHERE project_key = $1 AND session_id = $2"#
                        ),
                        &[&project, &session],
                    )?;
                }
                transaction.commit()?;
            } else {
                client.execute(
                    &format!(
                        r#"DELETE FROM "{table}"
                           WHERE project_key = $1 AND session_id = $2 AND subpath = $3"#
                    ),
                    &[&project, &session, &subpath],
                )?;
            }
            Ok(())
        })
    }

    fn list_subkeys<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        let (project, session, _) = match columns(key) {
            Ok(columns) => columns,
            Err(e) => return refused(e),
        };
        self.run(move |client, tables| {
            let table = &tables.entries;
            let rows = client.query(
                &format!(
                    r#"SELECT DISTINCT subpath FROM "{table}"
                       WHERE project_key = $1 AND session_id = $2 AND subpath <> ''"#
                ),
                &[&project, &session],
            )?;
            rows.iter().map(|row| row.try_get(0)).collect()
        })
    }
}

/// A JSON object's members, if `text` is one.
fn object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// Folds the entries just inserted at the main transcript `key` (rows of
/// `seq`, `entry`) into its summary, within the append's transaction. A
/// session without a summary is folded whole.
fn fold_in(
    transaction: &mut postgres::Transaction<'_>,
    tables: &Tables,
    key: &SessionKey,
    mut inserted: Vec<postgres::Row>,
) -> Result<(), postgres::Error> {
    let (project, session) = (&key.project_key, &key.session_id);
    let previous = transaction
        .query_opt(
            &format!(
                r#"SELECT mtime, data::text FROM "{}"
                   WHERE project_key = $1 AND session_id = $2"#,
                tables.summaries
            ),
            &[project, session],
        )?
        .map(|row| -> Result<_, postgres::Error> {
            Ok(
                object(&row.try_get::<_, String>(1)?).map(|data| SessionSummary {
                    session_id: session.clone(),
                    mtime: row.try_get(0).unwrap_or_default(),
                    data,
                }),
            )
        })
        .transpose()?
        .flatten();
    let rows = match &previous {
        // A retried batch that was all there already changes nothing.
        Some(_) if inserted.is_empty() => return Ok(()),
        Some(_) => {
            // RETURNING's order is not promised: `seq` is the batch's.
            inserted.sort_by_key(|row| row.try_get::<_, i64>(0).unwrap_or_default());
            inserted
        }
        None => transaction.query(
            &format!(
                r#"SELECT seq, entry::text FROM "{}"
                   WHERE project_key = $1 AND session_id = $2 AND subpath = ''
                   ORDER BY seq"#,
                tables.entries
            ),
            &[project, session],
        )?,
    };
    let mut entries = Vec::with_capacity(rows.len());
    for row in &rows {
        if let Ok(entry) = RawValue::from_string(row.try_get(1)?) {
            entries.push(entry);
        }
    }
    let folded = fold_summary(previous.as_ref(), key, &entries);
    let data = serde_json::Value::Object(folded.data).to_string();
    // Stamped now, after the entries' own `clock_timestamp()`: never older
    // than the session's time in `list_sessions`.
    transaction.execute(
        &format!(
            r#"INSERT INTO "{}" (project_key, session_id, mtime, data)
               VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, $3::text::json)
               ON CONFLICT (project_key, session_id)
               DO UPDATE SET mtime = excluded.mtime, data = excluded.data"#,
            tables.summaries
        ),
        &[project, session, &data],
    )?;
    Ok(())
}
