//! Cursor pagination of task listings (A2A 1.0 `ListTasks`).
//!
//! Tasks are ordered by status timestamp, newest first, ties broken by id (descending), so
//! the order is total and a page token can be the position of the last task it returned:
//! `hex(timestamp "\n" id)`. A token survives tasks being added or removed between pages
//! (no offset to drift) and needs no server-side state. [`list_page`] does the whole job for a
//! store that can iterate its tasks; other stores use [`PageCursor`] to read tokens.

use std::cmp::Ordering;

use crate::a2a::{Task, TaskListQuery, TaskPage};

/// A position in the listing order, read from or written to a page token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageCursor {
    timestamp: String,
    id: String,
}

impl PageCursor {
    /// The position of `task`.
    pub fn of(task: &Task) -> Self {
        Self {
            timestamp: sort_timestamp(task).to_owned(),
            id: task.id.clone(),
        }
    }

    /// Reads a page token; `None` when it is not one this server wrote.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::store::PageCursor;
    ///
    /// assert!(PageCursor::parse("not a token").is_none());
    /// ```
    pub fn parse(token: &str) -> Option<Self> {
        if !token.len().is_multiple_of(2) || token.len() > 4096 {
            return None;
        }
        let bytes = (0..token.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        let text = String::from_utf8(bytes).ok()?;
        let (timestamp, id) = text.split_once('\n')?;
        Some(Self {
            timestamp: timestamp.to_owned(),
            id: id.to_owned(),
        })
    }

    /// The page token for this position.
    pub fn token(&self) -> String {
        let mut token = String::with_capacity(2 * (self.timestamp.len() + 1 + self.id.len()));
        for byte in self
            .timestamp
            .bytes()
            .chain(std::iter::once(b'\n'))
            .chain(self.id.bytes())
        {
            token.push_str(&format!("{byte:02x}"));
        }
        token
    }

    /// The status timestamp of the position (empty for a task without one).
    pub fn timestamp(&self) -> &str {
        &self.timestamp
    }

    /// The task id of the position.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether `task` comes after this position in the listing order.
    pub fn precedes(&self, task: &Task) -> bool {
        listing_order_key(&self.timestamp, &self.id, sort_timestamp(task), &task.id)
            == Ordering::Less
    }
}

fn sort_timestamp(task: &Task) -> &str {
    task.status.timestamp.as_deref().unwrap_or("")
}

/// Newest first, then id descending.
fn listing_order_key(a_time: &str, a_id: &str, b_time: &str, b_id: &str) -> Ordering {
    b_time.cmp(a_time).then_with(|| b_id.cmp(a_id))
}

/// Whether `task` passes the query's filters (context, state, status timestamp).
pub(crate) fn matches(task: &Task, query: &TaskListQuery) -> bool {
    query
        .context_id
        .as_ref()
        .is_none_or(|context| *context == task.context_id)
        && query.state.is_none_or(|state| state == task.status.state)
        && query
            .status_timestamp_after
            .as_ref()
            .is_none_or(|after| sort_timestamp(task) >= normalized_timestamp(after).as_str())
}

/// RFC 3339 UTC with milliseconds, so timestamps compare as strings: a client's
/// `2025-11-09T10:30:00Z` becomes `2025-11-09T10:30:00.000Z`.
pub(crate) fn normalized_timestamp(timestamp: &str) -> String {
    match timestamp.strip_suffix('Z') {
        Some(base) if !base.contains('.') => format!("{base}.000Z"),
        _ => timestamp.to_owned(),
    }
}

/// One page of the `tasks` matching `query`, newest first; `None` when the page token is not
/// one this server wrote. Tasks carry all their history (the caller trims it).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{Task, TaskListQuery, TaskState, TaskStatus};
/// use a2ui_agent::store::list_page;
///
/// let task = |id: &str, at: &str| Task {
///     id: id.into(),
///     context_id: "c".into(),
///     status: TaskStatus { state: TaskState::Completed, message: None, timestamp: Some(at.into()) },
///     artifacts: vec![],
///     history: vec![],
///     metadata: None,
/// };
/// let tasks = [task("a", "2026-01-01T00:00:00.000Z"), task("b", "2026-01-02T00:00:00.000Z")];
/// let query = TaskListQuery { page_size: 1, ..TaskListQuery::default() };
/// let first = list_page(tasks.iter(), &query).unwrap();
/// assert_eq!((first.tasks[0].id.as_str(), first.total_size), ("b", 2));
/// let query = TaskListQuery { page_token: Some(first.next_page_token), ..query };
/// let second = list_page(tasks.iter(), &query).unwrap();
/// assert_eq!(second.tasks[0].id, "a");
/// assert_eq!(second.next_page_token, "");
/// ```
pub fn list_page<'a>(
    tasks: impl Iterator<Item = &'a Task>,
    query: &TaskListQuery,
) -> Option<TaskPage> {
    let cursor = match &query.page_token {
        Some(token) => Some(PageCursor::parse(token)?),
        None => None,
    };
    let page_size = query.page_size.clamp(1, TaskListQuery::MAX_PAGE_SIZE);
    let mut total_size = 0;
    let mut after: Vec<&Task> = Vec::new();
    for task in tasks.filter(|task| matches(task, query)) {
        total_size += 1;
        if cursor.as_ref().is_none_or(|cursor| cursor.precedes(task)) {
            after.push(task);
        }
    }
    let order = |a: &&Task, b: &&Task| {
        listing_order_key(sort_timestamp(a), &a.id, sort_timestamp(b), &b.id)
    };
    // Only the first `page_size + 1` in order are needed: select, then sort that few.
    if after.len() > page_size + 1 {
        after.select_nth_unstable_by(page_size, order);
        after.truncate(page_size + 1);
    }
    after.sort_unstable_by(order);
    let more = after.len() > page_size;
    after.truncate(page_size);
    let next_page_token = match (more, after.last()) {
        (true, Some(last)) => PageCursor::of(last).token(),
        _ => String::new(),
    };
    Some(TaskPage {
        tasks: after.into_iter().cloned().collect(),
        next_page_token,
        page_size,
        total_size,
    })
}

/// Where a SQL store's page of `query` starts (after the cursor of its token, if any) and
/// how many tasks it holds; `None` when the token is not one this crate wrote (the listing
/// then answers no page).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn sql_page_start(query: &TaskListQuery) -> Option<(Option<PageCursor>, usize)> {
    let cursor = match &query.page_token {
        Some(token) => Some(PageCursor::parse(token)?),
        None => None,
    };
    Some((
        cursor,
        query.page_size.clamp(1, TaskListQuery::MAX_PAGE_SIZE),
    ))
}

/// The page a SQL store's query read, newest first: it asked for one row past `page_size`,
/// so a row past it says another page follows, whose token is the last kept task's place.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn sql_page(mut tasks: Vec<Task>, page_size: usize, total_size: i64) -> TaskPage {
    let more = tasks.len() > page_size;
    tasks.truncate(page_size);
    let next_page_token = match (more, tasks.last()) {
        (true, Some(last)) => PageCursor::of(last).token(),
        _ => String::new(),
    };
    TaskPage {
        tasks,
        next_page_token,
        page_size,
        total_size: usize::try_from(total_size).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::a2a::{TaskState, TaskStatus};

    fn task(id: usize, second: usize, context: &str) -> Task {
        Task {
            id: format!("t{id:03}"),
            context_id: context.into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: Some(format!("2026-01-01T00:00:{second:02}.000Z")),
            },
            artifacts: vec![],
            history: vec![],
            metadata: None,
        }
    }

    proptest! {
        /// Walking the pages visits every matching task once, newest first.
        #[test]
        fn pages_cover_every_match_once_in_order(
            seconds in proptest::collection::vec(0usize..5, 0..40),
            page_size in 1usize..7,
        ) {
            let tasks: Vec<Task> = seconds
                .iter()
                .enumerate()
                .map(|(i, s)| task(i, *s, if i % 3 == 0 { "x" } else { "c" }))
                .collect();
            let mut query = TaskListQuery {
                context_id: Some("c".into()),
                page_size,
                ..TaskListQuery::default()
            };
            let mut seen: Vec<Task> = Vec::new();
            loop {
                let page = list_page(tasks.iter(), &query).unwrap();
                prop_assert!(page.tasks.len() <= page_size);
                seen.extend(page.tasks);
                if page.next_page_token.is_empty() {
                    break;
                }
                query.page_token = Some(page.next_page_token);
            }
            let mut expected: Vec<&Task> = tasks.iter().filter(|t| t.context_id == "c").collect();
            expected.sort_by(|a, b| listing_order_key(
                sort_timestamp(a), &a.id, sort_timestamp(b), &b.id));
            let expected: Vec<&str> = expected.iter().map(|t| t.id.as_str()).collect();
            let seen: Vec<&str> = seen.iter().map(|t| t.id.as_str()).collect();
            prop_assert_eq!(seen, expected);
        }

        /// Any token is read or refused, never a panic.
        #[test]
        fn any_token_is_read_or_refused(token in ".{0,64}") {
            let _ = PageCursor::parse(&token);
        }
    }

    #[test]
    fn a_token_this_server_did_not_write_is_refused() {
        let query = TaskListQuery {
            page_token: Some("zz".into()),
            ..TaskListQuery::default()
        };
        assert!(list_page([].iter(), &query).is_none());
        let cursor = PageCursor::of(&task(1, 2, "c"));
        assert_eq!(PageCursor::parse(&cursor.token()), Some(cursor));
    }

    #[test]
    fn a_timestamp_without_milliseconds_filters_like_one_with() {
        let query = TaskListQuery {
            status_timestamp_after: Some("2026-01-01T00:00:02Z".into()),
            ..TaskListQuery::default()
        };
        assert!(matches(&task(1, 2, "c"), &query));
        assert!(!matches(&task(1, 1, "c"), &query));
    }
}
