//! Why a store call failed.
//!
//! Each variant says what went wrong in terms a log reader can act on, and keeps the failure
//! it came from as its [`source`](std::error::Error::source) where there is one (a SQLite or
//! PostgreSQL error, an I/O error). Clients never see this text: the server answers a
//! generic internal error (or "busy" for a full store) and logs the detail.

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

/// A failure kept behind an [`Arc`], so the error stays cheap to clone.
type Source = Arc<dyn Error + Send + Sync + 'static>;

/// A store failure. The client sees a generic internal error (or, for a full store, the
/// server's "busy" error); the detail is logged.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Every slot holds a task that cannot be evicted.
    #[error("task store full: {capacity} tasks are all running")]
    Full {
        /// The store's capacity.
        capacity: usize,
    },
    /// The tasks that cannot be evicted hold so many bytes that a new one would not fit.
    #[error("task store full: running tasks hold its {max_bytes} bytes")]
    OverBudget {
        /// The store's byte budget.
        max_bytes: usize,
    },
    /// The store does not do this operation.
    #[error("this task store does not support {0}")]
    Unsupported(&'static str),
    /// The database refused or failed a statement.
    #[error("{engine}: {source}")]
    Database {
        /// The database (`"sqlite"`, `"postgres"`).
        engine: &'static str,
        /// The database's own error.
        source: Source,
    },
    /// The database was set up by a newer a2ui-agent: this one does not know its schema.
    #[error(
        "{engine}: the task database has schema version {found}; this a2ui-agent knows up to {known}"
    )]
    NewerSchema {
        /// The database.
        engine: &'static str,
        /// The schema version found.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A stored task does not read back: the store wrote what it cannot decode (a bug), or
    /// the data was changed behind its back.
    #[error("{engine}: task {id} cannot be read back: {detail}")]
    Corrupt {
        /// The store (`"memory"`, `"sqlite"`, `"postgres"`).
        engine: String,
        /// The task.
        id: String,
        /// What does not decode.
        detail: String,
    },
    /// The database gave no answer in time.
    #[error("{engine}: no answer from {from} within {after:?}")]
    Timeout {
        /// The database.
        engine: &'static str,
        /// What was asked (the connection being made, a query, the listening connection).
        from: &'static str,
        /// How long the store waited.
        after: Duration,
    },
    /// The store cannot take calls now (its connection is lost, its thread stopped).
    #[error("{engine}: {reason}")]
    Unavailable {
        /// The store.
        engine: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The database could not be reached, with the causes and what to check (a certificate
    /// signed by another CA, a host name the certificate does not name).
    #[error("{engine}: {detail}")]
    Connect {
        /// The database.
        engine: &'static str,
        /// What failed, its causes and a hint.
        detail: String,
    },
    /// The store's settings do not hold together (an unknown `sslmode`, a CA file that does
    /// not read).
    #[error("{engine}: {detail}")]
    Config {
        /// The store.
        engine: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The operating system refused something the store needs.
    #[error("{engine}: cannot {doing}: {source}")]
    Io {
        /// The store.
        engine: &'static str,
        /// What it tried (`"start its thread"`).
        doing: &'static str,
        /// The system's error.
        source: Arc<std::io::Error>,
    },
    /// A store call panicked (a bug); the store itself goes on.
    #[error("{engine}: a store call panicked")]
    Panicked {
        /// The store.
        engine: &'static str,
    },
    /// A write named a task id that another owner's task holds: the store keeps that task
    /// as it is (ids are the server's, so this means a bug or a forged id).
    #[error("{engine}: task {id} belongs to another owner")]
    OtherOwner {
        /// The store.
        engine: &'static str,
        /// The task.
        id: String,
    },
    /// The write failed for now, and the store keeps the task to write it as soon as it can
    /// (PostgreSQL while the database is out of reach): the outcome is logged then.
    #[error("{0}; the task is kept to be written once the store is back")]
    Deferred(Box<StoreError>),
    /// A failure of a store outside this crate (see [`StoreError::backend`]).
    #[error(transparent)]
    Backend(Source),
}

impl StoreError {
    /// Whether the store refused for lack of room (the server answers "busy": retry later).
    pub fn is_full(&self) -> bool {
        matches!(
            self,
            StoreError::Full { .. } | StoreError::OverBudget { .. }
        )
    }

    /// Whether the store keeps what it could not write, to write it once it can (see
    /// [`StoreError::Deferred`]).
    pub fn is_deferred(&self) -> bool {
        matches!(self, StoreError::Deferred(_))
    }

    /// The failure of a [`TaskStore`](super::TaskStore) written outside this crate: any error
    /// (kept as the source), or a message.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::store::StoreError;
    ///
    /// let error = StoreError::backend("the disk is full");
    /// assert_eq!(error.to_string(), "the disk is full");
    /// let io = std::io::Error::other("refused");
    /// assert_eq!(StoreError::backend(io).to_string(), "refused");
    /// ```
    pub fn backend(error: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        StoreError::Backend(Arc::from(error.into()))
    }

    /// Whether the database refused to write because it cannot take writes now: its disk
    /// (or file size limit) is full, or its file or database is read-only. The client is told
    /// the task could not be stored, which it may act on (retry later, elsewhere); which file
    /// or why stays in the log.
    pub(crate) fn cannot_write(&self) -> bool {
        let StoreError::Database { source, .. } = self else {
            return false;
        };
        #[cfg(feature = "sqlite")]
        if let Some(rusqlite::Error::SqliteFailure(failure, _)) =
            source.downcast_ref::<rusqlite::Error>()
        {
            use rusqlite::ffi;
            return matches!(
                failure.code,
                rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::ReadOnly
            ) || matches!(
                failure.extended_code,
                ffi::SQLITE_IOERR_WRITE | ffi::SQLITE_IOERR_FSYNC | ffi::SQLITE_IOERR_TRUNCATE
            );
        }
        #[cfg(feature = "postgres")]
        if let Some(code) = source
            .downcast_ref::<tokio_postgres::Error>()
            .and_then(tokio_postgres::Error::code)
        {
            use tokio_postgres::error::SqlState;
            return [
                SqlState::DISK_FULL,
                SqlState::READ_ONLY_SQL_TRANSACTION,
                SqlState::INSUFFICIENT_RESOURCES,
            ]
            .contains(code);
        }
        let _ = source;
        false
    }

    /// A database error of `engine`, kept as the source.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn database(
        engine: &'static str,
        error: impl Error + Send + Sync + 'static,
    ) -> Self {
        StoreError::Database {
            engine,
            source: Arc::new(error),
        }
    }

    /// Task `id` of `engine` does not read back: `detail` says what does not decode.
    pub(crate) fn corrupt(engine: &str, id: &str, detail: impl std::fmt::Display) -> Self {
        StoreError::Corrupt {
            engine: engine.to_owned(),
            id: id.to_owned(),
            detail: detail.to_string(),
        }
    }
}
