//! Starting a run: a new task for a message, or the interrupted task the message continues.
//!
//! The task is checked, moved to `working` (a continuation) and stored before its run is
//! registered and spawned; a continuation claims the task's id from its first check until
//! its run is registered, and stores through the store's compare-and-set.

use std::sync::Arc;
use std::task::Poll;

use tracing::Instrument;

use super::TaskError;
use super::handoff::{Begun, First, Job, Started};
use super::lifecycle::{archive_reply, transition};
use super::manager::{Claim, TaskManager, busy_or_terminal, status_event};
use super::reply_kinds;
use super::run;
use super::running::Running;
use crate::a2a::{Message, PushConfig, Task, TaskState, TaskStatus};
use crate::request::prepared::{Decided, Prepared};
use crate::store::{Owner, PushConfigPut, Watched};

/// What a task's agent request is built from: the request step's decision, or the request
/// the agent already answered before the task existed (see [`super::reply_kinds`]).
// Held only while a run starts, and moved once: boxing `Decided` would add an allocation
// to every continuation for no lasting saving.
#[allow(clippy::large_enum_variant)]
enum Source {
    Decided(Decided),
    First(Box<First>),
}

impl Source {
    /// The run's job for `task` (whose new `message` follows `prior`), and the extension
    /// URIs activated for the request.
    fn into_job(
        self,
        message: Message,
        task: &Task,
        prior: Vec<Message>,
        stream: bool,
    ) -> (Job, Vec<String>) {
        match self {
            Source::Decided(decided) => {
                let (request, activated) =
                    decided.into_request(message, &task.id, &task.context_id, prior);
                (Job::new(&task.id, request, stream, None), activated)
            }
            Source::First(first) => {
                let First {
                    request,
                    activated,
                    called,
                    ..
                } = *first;
                (Job::new(&task.id, request, stream, called), activated)
            }
        }
    }
}

/// A task about to run, before the new message joins its history.
struct Opened {
    task: Task,
    /// The history the agent gets with the request (a continuation's earlier messages).
    prior: Vec<Message>,
    /// The status read from the store, for the compare-and-set (a continuation only).
    read: Option<TaskStatus>,
}

/// Creates a task of `owner` for the prepared message, or continues the interrupted task
/// of `owner`'s it names (another owner's task is not found),
/// and starts the agent on it (or fails the task at once when the request step refused
/// its A2UI). With `stream`, the client reads the reply as it comes and the caller also
/// gets every event from the first on (a caller that will not read them must not
/// subscribe: the runner waits for its subscribers). When the client `waits` for the
/// answer and the message starts a new task, the agent is called before the task
/// exists, and a bare message answers without one (see [`super::reply_kinds`]). A `push`
/// config given with the message is set on the task before its run starts, so its
/// webhook gets every update (its id chosen by the caller already).
pub(super) async fn start(
    tasks: &Arc<TaskManager>,
    owner: Owner,
    prepared: Prepared,
    stream: bool,
    waits: bool,
    push: Option<PushConfig>,
) -> Result<Begun, TaskError> {
    // Called here, in the caller's future: a client that hangs up while the agent
    // decides drops the call, and nothing was stored yet.
    let (message, source) = if waits && prepared.message.task_id.is_none() {
        match reply_kinds::answer_first(tasks, prepared).await? {
            Ok((message, first)) => (message, Source::First(Box::new(first))),
            Err(answered) => return Ok(answered),
        }
    } else {
        (prepared.message, Source::Decided(prepared.decided))
    };
    // A client that hangs up drops the request's future, and a store may still finish a
    // write whose future was dropped. Stopped between storing the task and starting its
    // run, the task would stay stored `submitted` (or `working`) with nothing running
    // it. So a start that does not end at its first poll (it waits on the store or a
    // lock) ends on a task of its own; one that does (the in-memory store) costs no
    // spawn.
    let mut begin = Box::pin(begin(tasks.clone(), owner, message, source, stream, push));
    let started = match futures::poll!(begin.as_mut()) {
        Poll::Ready(started) => started,
        // The run's span stays a child of the request's.
        Poll::Pending => tokio::spawn(begin.instrument(tracing::Span::current()))
            .await
            .unwrap_or_else(|joined| Err(TaskError::StartStopped(Arc::new(joined)))),
    };
    started.map(Begun::Task)
}

/// [`start`](TaskManager::start), run to its end whether or not its caller still waits.
async fn begin(
    tasks: Arc<TaskManager>,
    owner: Owner,
    mut message: Message,
    source: Source,
    stream: bool,
    push: Option<PushConfig>,
) -> Result<Started, TaskError> {
    tasks.listen_for_cancels();
    let ids = match &source {
        Source::First(first) => Some((first.task_id.clone(), first.context_id.clone())),
        Source::Decided(_) => None,
    };
    let (claim, opened) = open(&tasks, &owner, &mut message, ids).await?;
    let Opened {
        mut task,
        prior,
        read,
    } = opened;
    message.task_id = Some(task.id.clone());
    task.history.push(message.clone());
    let task = task.with_history_length(Some(tasks.max_history));
    // Known to the cluster as running here before it is stored so: a watcher elsewhere
    // that finds it running reaches this run (see `Cluster::run`).
    let remote = tasks.cluster.as_ref().map(|cluster| cluster.run(&task.id));
    store_opened(&tasks, &owner, read.as_ref(), &task).await?;
    if let (Some(remote), Some(_)) = (&remote, &read) {
        // A continuation: watchers may have announced themselves while it waited.
        mark_if_watched(&tasks, &task.id, remote).await;
    }
    let pushed = open_push(&tasks, &owner, &task.id, push, read.is_some()).await?;
    let (running, stop) = Running::start(task.clone(), owner, remote);
    // With a shared store another instance may give the task a webhook: its events are
    // built for the pusher from the start, as it asks for every one (see `push_event`).
    if pushed || (tasks.push.is_some() && tasks.cluster.is_some()) {
        running.push_on();
    }
    let events = stream
        .then(|| running.subscribe(tasks.max_subscribers))
        .flatten()
        .map(|(_, events)| events);
    tasks.register(&task.id, running.clone());
    tasks
        .watchers
        .started(&task.id, &running, tasks.max_subscribers);
    drop(claim);
    tracing::debug!(task_id = %task.id, context_id = %task.context_id, "task started");
    let (job, activated) = source.into_job(message, &task, prior, stream);
    // The webhooks hear of the task (`submitted`, or `working` again) before its run.
    tasks.push_event(&running, Some(&Arc::new(status_event(&task, false))));
    // The agent's own tracing events carry the task and context ids.
    let span = tracing::info_span!("task", task_id = %task.id, context_id = %task.context_id);
    tokio::spawn(run::run(tasks.clone(), running.clone(), job, stop).instrument(span));
    Ok(Started {
        running,
        snapshot: task,
        events,
        activated,
    })
}

/// The task `message` continues (checked as `owner`'s and claimed until its run is
/// registered), or a new one for it (a fresh id nobody else knows: no claim), with the
/// task and context `ids` the agent's first answer was given under, if any.
async fn open<'t>(
    tasks: &'t TaskManager,
    owner: &Owner,
    message: &mut Message,
    ids: Option<(String, String)>,
) -> Result<(Option<Claim<'t>>, Opened), TaskError> {
    let Some(id) = message.task_id.clone() else {
        return Ok((None, new_task(tasks, message, ids)));
    };
    // Another owner's task is not found, before it is claimed.
    tasks.check_owner(owner, &id).await?;
    let claim = tasks.try_claim(&id).ok_or(TaskError::Busy {
        id,
        state: TaskState::Working,
    })?;
    let opened = continuation(tasks, owner, &claim.id, message).await?;
    Ok((Some(claim), opened))
}

/// Marks the continued task `id` as watched from other instances when any announced
/// themselves (or when that cannot be told), so its events are published for them.
async fn mark_if_watched(tasks: &TaskManager, id: &str, remote: &Watched) {
    let Some(cluster) = &tasks.cluster else {
        return;
    };
    match cluster.announced(id).await {
        Ok(false) => {}
        Ok(true) => remote.mark(),
        Err(error) => {
            tracing::debug!(task_id = %id, %error,
                "cannot tell whether other instances watch the task: publishing all");
            remote.mark();
        }
    }
}

/// Sets the `push` config given with the message on the task just stored, and tells
/// whether the task has webhooks: a new one has them only when given one; a
/// continuation also when it was given some earlier (only asked when push is on).
async fn open_push(
    tasks: &TaskManager,
    owner: &Owner,
    id: &str,
    push: Option<PushConfig>,
    continuation: bool,
) -> Result<bool, TaskError> {
    let Some(pusher) = &tasks.push else {
        return Ok(false);
    };
    if let Some(mut config) = push {
        if config.id.is_empty() {
            // A 0.3 config given without an id is known by its task's.
            config.id = id.to_owned();
        }
        let max = pusher.settings().max_configs_per_task;
        match tasks.store.put_push_config(owner, id, config, max).await? {
            PushConfigPut::Kept => {
                pusher.configs_changed(owner, id);
                return Ok(true);
            }
            PushConfigPut::Full => {
                return Err(TaskError::TooManyPushConfigs {
                    id: id.to_owned(),
                    max,
                });
            }
            PushConfigPut::NoTask => return Err(TaskError::NotFound { id: id.to_owned() }),
        }
    }
    if !continuation {
        return Ok(false);
    }
    let configs = tasks.store.push_configs(owner, id).await?;
    Ok(configs.is_some_and(|configs| !configs.is_empty()))
}

/// A new `submitted` task for `message`, in the message's context or a new one; `ids`
/// are the task and context ids when they were chosen already.
fn new_task(tasks: &TaskManager, message: &mut Message, ids: Option<(String, String)>) -> Opened {
    let (id, context_id) = ids.unwrap_or_else(|| {
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(|| tasks.ids.new_id());
        (tasks.ids.new_id(), context_id)
    });
    message.context_id = Some(context_id.clone());
    let task = Task {
        id,
        context_id,
        status: TaskStatus {
            state: TaskState::Submitted,
            message: None,
            timestamp: Some(tasks.now()),
        },
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    };
    Opened {
        task,
        prior: Vec::new(),
        read: None,
    }
}

/// Checks that `message` may continue task `id` and moves the task to `working` for it.
async fn continuation(
    tasks: &TaskManager,
    owner: &Owner,
    id: &str,
    message: &mut Message,
) -> Result<Opened, TaskError> {
    if let Some(running) = tasks.entry(owner, id) {
        let state = running.snapshot().status.state;
        if !state.is_settled() {
            return Err(TaskError::Busy {
                id: id.to_owned(),
                state,
            });
        }
        // The run is storing its final state: wait for it to be done.
        running.wait_done().await;
    }
    let mut task = tasks.load(owner, id).await?;
    let state = task.status.state;
    if !state.is_interrupted() {
        return Err(busy_or_terminal(id, state));
    }
    let read = task.status.clone();
    match &message.context_id {
        Some(given) if *given != task.context_id => {
            return Err(TaskError::ContextMismatch {
                id: id.to_owned(),
                expected: task.context_id.clone(),
                given: given.clone(),
            });
        }
        _ => message.context_id = Some(task.context_id.clone()),
    }
    archive_reply(&mut task);
    transition(&mut task, TaskState::Working, None, tasks.now())?;
    // Room for the message that continues it.
    let task = task.with_history_length(Some(tasks.max_history.saturating_sub(1)));
    Ok(Opened {
        prior: task.history.clone(),
        task,
        read: Some(read),
    })
}

/// Stores the task about to run: a new one as it is, a continuation only if its status
/// is still the one `read` (another instance may have continued or canceled it since).
async fn store_opened(
    tasks: &TaskManager,
    owner: &Owner,
    read: Option<&TaskStatus>,
    task: &Task,
) -> Result<(), TaskError> {
    let Some(read) = read else {
        return Ok(tasks.store.put(owner, task.clone()).await?);
    };
    if tasks.store.replace(owner, read, task.clone()).await? {
        return Ok(());
    }
    let state = tasks
        .store
        .get(owner, &task.id)
        .await?
        .map_or(read.state, |kept| kept.status.state);
    Err(busy_or_terminal(&task.id, state))
}
