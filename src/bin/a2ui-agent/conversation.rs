//! One conversation with an agent, turn by turn, as `call` and `chat` hold it: the context
//! (and the task while the agent waits for input) kept across turns, the A2UI capabilities
//! and data model sent with every message, the streamed answer printed as it comes, the
//! surfaces it drew taken into a [`Surfaces`] model and outlined when the turn ends, and a
//! button of that outline pressed by number.

use std::io::Write;
use std::time::SystemTime;

use a2ui_agent::a2a::{Message, Part, SendConfiguration, SendRequest, StreamEvent, TaskState};
use a2ui_agent::a2ui::{Outline, ProtocolVersion, Surfaces};
use a2ui_agent::agent::STATUS_METADATA;
use a2ui_agent::client::Client;
use a2ui_agent::clock::timestamp;
use futures::StreamExt;
use serde_json::{Map, Value, json};

/// The MIME types that mark a data part as an A2UI message (v0.8/v0.9, v0.9.1 on).
const A2UI_MIME_TYPES: [&str; 2] = ["application/json+a2ui", "application/a2ui+json"];

/// A conversation with one agent.
pub struct Conversation {
    client: Client,
    version: Option<ProtocolVersion>,
    json: bool,
    surfaces: Surfaces,
    context_id: Option<String>,
    /// The task to continue: set while the agent waits for input.
    task_id: Option<String>,
    /// The outline last printed: its buttons are the ones a number presses.
    outline: Outline,
}

/// What one turn has taken in so far.
#[derive(Default)]
struct Turn {
    streamed_text: String,
    streamed_a2ui: bool,
    /// Whether an A2UI message came since the last text: the next text starts a new line.
    text_broken: bool,
    touched: Vec<String>,
    state: Option<TaskState>,
    last_message: String,
}

impl Conversation {
    /// A conversation over `client`, asking for A2UI `version` (none: plain text), printing
    /// JSON lines when `json`.
    pub fn new(client: Client, version: Option<ProtocolVersion>, json: bool) -> Self {
        Self {
            client,
            version,
            json,
            surfaces: Surfaces::new(),
            context_id: None,
            task_id: None,
            outline: Outline::default(),
        }
    }

    /// Sends `text` as the user's next message and prints the answer.
    ///
    /// # Errors
    ///
    /// A one-line message when the call fails or the task fails.
    pub async fn say(&mut self, text: &str) -> Result<(), String> {
        self.turn(vec![Part::text(text)]).await
    }

    /// Presses button `number` of the outline last printed and prints the answer.
    ///
    /// # Errors
    ///
    /// A one-line message for a number no button has, a button that sends nothing, or a
    /// failed call or task.
    pub async fn press(&mut self, number: usize) -> Result<(), String> {
        let count = self.outline.buttons().len();
        let button = self.outline.button(number).cloned().ok_or_else(|| {
            format!("there is no button [{number}]: the last answer showed {count}")
        })?;
        let message = self
            .surfaces
            .press(&button, &timestamp(SystemTime::now()))
            .map_err(|e| format!("button [{number}] {}: {e}", button.label()))?;
        if self.json {
            emit(
                &json!({"kind": "press", "number": number, "label": button.label(),
                "surfaceId": button.surface_id(), "message": message}),
            );
        } else {
            out(&format!("> [{number}] {}\n", button.label()));
        }
        let version = self.version.unwrap_or(ProtocolVersion::V0_9);
        let mut metadata = Map::new();
        metadata.insert("mimeType".into(), Value::from(version.mime_type()));
        let data = match message {
            Value::Object(data) => data,
            _ => return Err("the pressed button's message is not an object".into()),
        };
        self.turn(vec![Part::Data {
            data: data.into(),
            metadata: Some(metadata.into()),
        }])
        .await
    }

    async fn turn(&mut self, parts: Vec<Part>) -> Result<(), String> {
        let mut message = Message::user(uuid(), parts);
        message.context_id = self.context_id.clone();
        message.task_id = self.task_id.clone();
        if let Some(version) = self.version {
            message.extensions = vec![version.extension_uri().to_owned()];
            let mut metadata = Map::new();
            metadata.insert("a2uiClientCapabilities".into(), capabilities(version));
            if let Some(model) = self.surfaces.client_data_model() {
                metadata.insert("a2uiClientDataModel".into(), model);
            }
            message.metadata = Some(metadata);
        }
        let request = SendRequest {
            message,
            configuration: SendConfiguration::default(),
            metadata: None,
        };
        let mut events = self
            .client
            .send_streaming(request)
            .await
            .map_err(|e| e.to_string())?;
        let mut turn = Turn::default();
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| {
                self.finish_text(&turn);
                e.to_string()
            })?;
            self.take(event, &mut turn);
        }
        self.finish_text(&turn);
        self.task_id = match turn.state {
            Some(state) if state.is_interrupted() => self.task_id.take(),
            _ => None,
        };
        self.outline = self.surfaces.outline(&turn.touched);
        if self.json {
            let buttons: Vec<Value> = self
                .outline
                .buttons()
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    json!({"number": i + 1, "label": b.label(), "action": b.action(),
                        "surfaceId": b.surface_id(), "componentId": b.component_id()})
                })
                .collect();
            if !turn.touched.is_empty() {
                emit(&json!({"kind": "outline", "surfaces": turn.touched,
                    "text": self.outline.text(), "buttons": buttons}));
            }
        } else {
            out(self.outline.text());
        }
        match turn.state {
            Some(state @ (TaskState::Failed | TaskState::Rejected | TaskState::Canceled)) => {
                let why = turn.last_message.trim();
                let why = if why.is_empty() {
                    String::new()
                } else {
                    format!(": {why}")
                };
                Err(format!("the agent's task ended {}{why}", state.as_str()))
            }
            Some(TaskState::AuthRequired) => {
                Err("the agent asks for authentication (try --bearer-token or --api-key)".into())
            }
            _ => Ok(()),
        }
    }

    /// Takes one event of the answer: its ids, its state, and the parts it brings.
    fn take(&mut self, event: StreamEvent, turn: &mut Turn) {
        match event {
            StreamEvent::Task(task) => {
                self.ids(&task.id, &task.context_id);
                self.status(task.status.state, task.status.message.as_ref(), turn);
            }
            StreamEvent::StatusUpdate(update) => {
                self.ids(&update.task_id, &update.context_id);
                self.status(update.status.state, update.status.message.as_ref(), turn);
            }
            StreamEvent::ArtifactUpdate(update) => {
                self.ids(&update.task_id, &update.context_id);
                self.parts(&update.artifact.parts, turn, false);
            }
            StreamEvent::Message(message) => {
                if let Some(context) = &message.context_id {
                    self.context_id = Some(context.clone());
                }
                turn.state = None;
                self.parts(&message.parts, turn, false);
            }
        }
    }

    fn ids(&mut self, task: &str, context: &str) {
        self.task_id = Some(task.to_owned());
        self.context_id = Some(context.to_owned());
    }

    /// A status: a working update's message is the next piece of the answer; the last
    /// status repeats the whole answer (ours does), so only what was not streamed is taken.
    fn status(&mut self, state: TaskState, message: Option<&Message>, turn: &mut Turn) {
        let changed = turn.state != Some(state);
        turn.state = Some(state);
        if self.json && changed {
            emit(&json!({"kind": "status", "state": state.as_str(),
                "taskId": self.task_id, "contextId": self.context_id}));
        }
        let Some(message) = message else {
            return;
        };
        if state == TaskState::Working || state == TaskState::Submitted {
            self.parts(&message.parts, turn, false);
        } else {
            turn.last_message = message.text();
            self.parts(&message.parts, turn, true);
        }
    }

    /// Prints the text of `parts` and applies their A2UI messages. For the closing status
    /// (`closing`), only text beyond what streamed, and A2UI only when none streamed.
    fn parts(&mut self, parts: &[Part], turn: &mut Turn, closing: bool) {
        let mut closing_text = String::new();
        let mut a2ui = Vec::new();
        for part in parts {
            match part {
                Part::Text { text, metadata } => {
                    let passing = metadata
                        .as_ref()
                        .and_then(|m| m.get(STATUS_METADATA))
                        .and_then(Value::as_bool)
                        == Some(true);
                    if passing {
                        continue;
                    }
                    if closing {
                        closing_text.push_str(text);
                    } else {
                        self.streamed(text, turn);
                    }
                }
                Part::Data { data, metadata } => {
                    let mime = metadata
                        .as_ref()
                        .and_then(|m| m.get("mimeType"))
                        .and_then(Value::as_str);
                    if mime.is_some_and(|m| A2UI_MIME_TYPES.contains(&m)) {
                        a2ui.push(Value::Object((**data).clone()));
                        turn.text_broken = !closing;
                    }
                }
                Part::File { .. } => {}
            }
        }
        if closing {
            let rest = closing_text
                .strip_prefix(turn.streamed_text.as_str())
                .unwrap_or(if turn.streamed_text.is_empty() {
                    &closing_text
                } else {
                    ""
                })
                .to_owned();
            self.streamed(&rest, turn);
            if turn.streamed_a2ui {
                return;
            }
        } else if !a2ui.is_empty() {
            turn.streamed_a2ui = true;
        }
        for message in a2ui {
            if self.json {
                emit(&json!({"kind": "a2ui", "message": message}));
            }
            match self.surfaces.apply(&message) {
                Ok(id) => {
                    if !turn.touched.contains(&id) {
                        turn.touched.push(id);
                    }
                }
                Err(error) => eprintln!("warning: an A2UI message was not drawn: {error}"),
            }
        }
        turn.touched.retain(|id| self.surfaces.get(id).is_some());
    }

    /// Prints a piece of the answer's text, on a new line when a surface came between it and
    /// the text before (as a page shows a new paragraph after the surface).
    fn streamed(&self, text: &str, turn: &mut Turn) {
        if text.is_empty() {
            return;
        }
        let broken = turn.text_broken && !self.json;
        if broken && !turn.streamed_text.is_empty() && !turn.streamed_text.ends_with('\n') {
            self.text("\n");
            turn.streamed_text.push('\n');
        }
        turn.text_broken = false;
        self.text(text);
        turn.streamed_text.push_str(text);
    }

    /// Prints a piece of the agent's text as it comes (control characters but line breaks
    /// and tabs dropped: an agent cannot move the cursor or recolour the terminal).
    fn text(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.json {
            emit(&json!({"kind": "text", "text": text}));
        } else {
            let clean: String = text
                .chars()
                .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                .collect();
            out(&clean);
        }
    }

    /// Ends the turn's text on a line of its own.
    fn finish_text(&self, turn: &Turn) {
        if !self.json && !turn.streamed_text.is_empty() && !turn.streamed_text.ends_with('\n') {
            out("\n");
        }
    }
}

/// The `a2uiClientCapabilities` of a renderer of `version`'s basic catalog.
fn capabilities(version: ProtocolVersion) -> Value {
    let catalogs = json!({"supportedCatalogIds": [version.basic_catalog_id()]});
    match version {
        ProtocolVersion::V0_8 => catalogs,
        _ => json!({ version.as_str(): catalogs }),
    }
}

/// The single-threaded runtime `call` and `chat` run on, or the one-line error that ends them.
pub fn runtime() -> Result<tokio::runtime::Runtime, std::process::ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            eprintln!("error: could not start the async runtime: {error}");
            std::process::ExitCode::FAILURE
        })
}

/// Writes one JSON line to standard output.
fn emit(value: &Value) {
    out(&format!("{value}\n"));
}

/// Writes `text` to standard output at once. A reader that closed the pipe (`| head`) chose
/// to read no more: that is not an error to report, nor a reason to panic as `print!` does.
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}
