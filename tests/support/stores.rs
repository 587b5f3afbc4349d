//! The task stores a scenario runs against: one test body, once per store, so a store that
//! forgets a check fails the same test the others pass.

use a2ui_agent::a2a::{Task, TaskState, TaskStatus};
use a2ui_agent::server::ServerBuilder;

/// A task store a scenario can run with.
#[derive(Clone, Copy, Debug)]
pub enum Store {
    /// The default in-memory store.
    Memory,
    /// SQLite, in memory.
    #[cfg(feature = "sqlite")]
    Sqlite,
    /// PostgreSQL: a fresh database on this test binary's throwaway cluster.
    #[cfg(feature = "postgres")]
    Postgres,
}

impl Store {
    /// `builder` keeping its tasks in this store; `None` when the store is not available
    /// here (PostgreSQL not installed: the scenario is skipped, unless
    /// `A2UI_REQUIRE_POSTGRES=1`, which fails instead).
    pub async fn on(self, builder: ServerBuilder) -> Option<ServerBuilder> {
        Some(match self {
            Store::Memory => builder,
            #[cfg(feature = "sqlite")]
            Store::Sqlite => {
                builder.store(a2ui_agent::store::SqliteStore::open_in_memory().unwrap())
            }
            #[cfg(feature = "postgres")]
            Store::Postgres => {
                let url = super::postgres::cluster()?.database("scenario");
                let store = a2ui_agent::store::PostgresStore::builder(url)
                    .connect()
                    .await
                    .unwrap();
                builder.store(store)
            }
        })
    }
}

/// A task `id` in `state` with nothing in it: what store tests put before they set configs
/// or watch.
#[allow(dead_code)]
pub fn bare_task(id: &str, state: TaskState) -> Task {
    Task {
        id: id.into(),
        context_id: "c".into(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: Some("2026-01-01T00:00:00.000Z".into()),
        },
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    }
}
