//! The orchestrator in front of two real sub-agents on real sockets: the demo restaurant
//! finder (`a2ui-agent serve`'s agent) and a weather agent that draws a surface called
//! `main`, each served by the crate's server; our client talks to the orchestrator as a
//! renderer would (A2UI v0.9 capabilities, actions, the data model in the metadata).
#![cfg(feature = "orchestrator")]

#[path = "../src/bin/a2ui-agent/demo.rs"]
mod demo;
#[cfg(feature = "llm")]
mod llm_support;

use std::sync::{Arc, Mutex};

use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::a2a::{Message, Part, StreamEvent, TaskState};
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::client::{Client, text_request};
use a2ui_agent::generator::Generator;
use a2ui_agent::orchestrator::Orchestrator;
use a2ui_agent::request::{Request, UserActionKind};
use a2ui_agent::server::{A2uiServer, ServerBuilder};
use demo::{DemoConfig, RestaurantFinder};
use futures::StreamExt;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

const V: ProtocolVersion = ProtocolVersion::V0_9;

/// What a sub-agent was asked: one line per call.
#[derive(Debug, Clone)]
struct Asked {
    text: String,
    context_id: String,
    task_id: String,
    /// The surfaces the user acted on, as the sub-agent sees them.
    acted_on: Vec<String>,
    data_model: Option<Value>,
    a2ui: Option<ProtocolVersion>,
}

type Log = Arc<Mutex<Vec<Asked>>>;

/// `agent`, with every request it gets written to `log` first.
fn logged(agent: impl Agent, log: Log) -> impl Agent {
    let agent = Arc::new(agent);
    move |request: Request| {
        log.lock().unwrap().push(Asked {
            text: request.text(),
            context_id: request.context_id().to_owned(),
            task_id: request.task_id().to_owned(),
            acted_on: request
                .actions()
                .iter()
                .filter(|a| a.kind == UserActionKind::Action)
                .filter_map(|a| a.surface_id.clone())
                .collect(),
            data_model: request.client_data_model().cloned(),
            a2ui: request.a2ui_version(),
        });
        agent.call(request)
    }
}

/// A sub-agent server for `agent` with `card`; its base URL and a sender that stops it.
async fn serve(card: AgentCard, agent: impl Agent) -> (String, oneshot::Sender<()>) {
    serve_with(card, agent, |builder| builder).await
}

/// [`serve`], the server's builder given to `configure` first.
async fn serve_with(
    card: AgentCard,
    agent: impl Agent,
    configure: impl FnOnce(ServerBuilder) -> ServerBuilder,
) -> (String, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let mut card = card;
    card.set_url(url.clone());
    let builder = A2uiServer::builder(card, agent)
        .generator(Generator::v0_9())
        .generator(Generator::v0_8());
    let server = configure(builder).build().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, server.router())
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    (url, stop)
}

/// The demo restaurant finder with the card `a2ui-agent serve` gives it.
async fn restaurants(log: Log) -> (String, oneshot::Sender<()>) {
    let mut skill = AgentSkill::new(
        "find-restaurants",
        "Find restaurants",
        "Lists restaurants near you and books a table",
    );
    skill.tags = vec!["restaurants".into(), "dinner".into(), "booking".into()];
    let card = AgentCard::builder("Restaurant finder")
        .description("Finds restaurants and books a table.")
        .skill(skill)
        .build();
    let agent = RestaurantFinder::new(DemoConfig::default().without_delays());
    serve(card, logged(agent, log)).await
}

/// A weather agent called `name` that draws its forecast on surface `main` (v0.9), with a
/// Refresh button whose context holds the surface's `/city`; pressed, it says what it got.
async fn weather(name: &str, topic: &str, log: Log) -> (String, oneshot::Sender<()>) {
    let mut skill = AgentSkill::new("forecast", format!("{topic} forecast"), "Rain or shine");
    skill.tags = vec![topic.to_lowercase(), "forecast".into()];
    let card = AgentCard::builder(name)
        .description(format!("Tells the {} for a city.", topic.to_lowercase()))
        .skill(skill)
        .build();
    let topic = topic.to_owned();
    let agent = move |request: Request| {
        let topic = topic.clone();
        async move {
            if let Some(action) = request.actions().first() {
                let city = action.context.get("city").cloned().unwrap_or(Value::Null);
                return Ok::<_, AgentError>(Reply::text(format!("{topic} refreshed for {city}.")));
            }
            let drawn = json!([
                {"version": "v0.9", "createSurface": {"surfaceId": "main",
                    "catalogId": V.basic_catalog_id(), "sendDataModel": true}},
                {"version": "v0.9", "updateComponents": {"surfaceId": "main", "components": [
                    {"id": "root", "component": "Column", "children": ["title", "refresh"]},
                    {"id": "title", "component": "Text", "text": format!("{topic}: sunny")},
                    {"id": "refresh", "component": "Button", "child": "label",
                     "action": {"event": {"name": "refresh", "context": {"city": {"path": "/city"}}}}},
                    {"id": "label", "component": "Text", "text": "Refresh"}]}},
                {"version": "v0.9", "updateDataModel": {"surfaceId": "main", "value": {"city": "Oslo"}}},
            ]);
            Ok(Reply::text(format!(
                "The {topic} for Oslo:<a2ui-json>{drawn}</a2ui-json>"
            )))
        }
    };
    serve(card, logged(agent, log)).await
}

/// The orchestrator over `agents`, served; its URL.
async fn orchestrate(orchestrator: Orchestrator) -> String {
    let card = orchestrator.card("Concierge").build();
    let (url, stop) = serve(card, orchestrator).await;
    std::mem::forget(stop); // served for the whole test
    url
}

/// What one turn brought the user.
#[derive(Debug, Default)]
struct Turn {
    text: String,
    /// The A2UI messages, in order.
    a2ui: Vec<Value>,
    state: Option<TaskState>,
    /// The last status message's text.
    status: String,
}

impl Turn {
    /// The surface ids created in this turn (v0.9 `createSurface`, v0.8 `beginRendering`).
    fn created(&self) -> Vec<String> {
        self.a2ui
            .iter()
            .filter_map(|m| {
                let created = m.get("createSurface").or_else(|| m.get("beginRendering"));
                created?.get("surfaceId")?.as_str()
            })
            .map(str::to_owned)
            .collect()
    }
}

/// Sends `parts` in conversation `context` to the orchestrator with the data model `model`.
async fn send(client: &Client, context: &str, parts: Vec<Part>, model: Option<Value>) -> Turn {
    send_in(V, client, context, parts, model).await
}

/// [`send`] from a renderer of A2UI `version`.
async fn send_in(
    version: ProtocolVersion,
    client: &Client,
    context: &str,
    parts: Vec<Part>,
    model: Option<Value>,
) -> Turn {
    let mut request = text_request("");
    let mut message = Message::user(uuid(), parts);
    message.context_id = Some(context.to_owned());
    let mut metadata = Map::new();
    let catalogs = json!({"supportedCatalogIds": [version.basic_catalog_id()]});
    let capabilities = match version {
        ProtocolVersion::V0_8 => catalogs,
        _ => json!({version.as_str(): catalogs}),
    };
    metadata.insert("a2uiClientCapabilities".into(), capabilities);
    if let Some(model) = model {
        metadata.insert("a2uiClientDataModel".into(), model);
    }
    message.metadata = Some(metadata);
    request.message = message;
    let mut events = client.send_streaming(request).await.unwrap();
    let mut turn = Turn::default();
    while let Some(event) = events.next().await {
        let event = event.unwrap();
        let StreamEvent::StatusUpdate(update) = event else {
            continue;
        };
        let message = update.status.message;
        if update.status.state == TaskState::Working {
            for part in message.iter().flat_map(|m| &m.parts) {
                match part {
                    Part::Text { text, .. } => turn.text.push_str(text),
                    Part::Data { data, .. } => turn.a2ui.push(Value::Object((**data).clone())),
                    Part::File { .. } => {}
                }
            }
        } else {
            turn.state = Some(update.status.state);
            turn.status = message.map(|m| m.text()).unwrap_or_default();
        }
    }
    turn
}

async fn say(client: &Client, context: &str, text: &str) -> Turn {
    send(client, context, vec![Part::text(text)], None).await
}

/// A press of `name` on surface `surface` (as the user sees its id), with `context`.
fn press(surface: &str, name: &str, context: Value) -> Part {
    let action = json!({"version": "v0.9", "action": {"name": name, "surfaceId": surface,
        "sourceComponentId": "button", "timestamp": "2026-12-05T12:00:00Z", "context": context}});
    let metadata = json!({"mimeType": V.mime_type()})
        .as_object()
        .cloned()
        .unwrap();
    Part::Data {
        data: Arc::new(action.as_object().cloned().unwrap()),
        metadata: Some(Arc::new(metadata)),
    }
}

fn uuid() -> String {
    format!("m-{}", rand_suffix())
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

async fn client(url: &str) -> Client {
    client_in(V, url).await
}

async fn client_in(version: ProtocolVersion, url: &str) -> Client {
    Client::builder(url)
        .extension(version.extension_uri())
        .connect()
        .await
        .unwrap()
}

struct Setup {
    client: Client,
    food: Log,
    sky: Log,
    /// The namespaces of the restaurant finder's and the weather agent's surfaces.
    food_ns: String,
    sky_ns: String,
    stop_sky: Option<oneshot::Sender<()>>,
}

async fn setup() -> Setup {
    let (food, sky) = (Log::default(), Log::default());
    let (food_url, _stop_food) = restaurants(food.clone()).await;
    std::mem::forget(_stop_food);
    let (sky_url, stop_sky) = weather("Weather", "Weather", sky.clone()).await;
    let orchestrator = Orchestrator::builder()
        .agent(food_url)
        .agent(sky_url)
        .connect()
        .await
        .unwrap();
    let food_ns = orchestrator.agents()[0].namespace().to_owned();
    let sky_ns = orchestrator.agents()[1].namespace().to_owned();
    let url = orchestrate(orchestrator).await;
    Setup {
        client: client(&url).await,
        food,
        sky,
        food_ns,
        sky_ns,
        stop_sky: Some(stop_sky),
    }
}

#[tokio::test]
async fn with_no_model_each_turn_goes_to_the_agent_whose_skills_it_names() {
    let s = setup().await;
    let dinner = say(&s.client, "c-1", "Dinner for two tonight?").await;
    assert!(
        dinner.text.starts_with("Here are three restaurants"),
        "{dinner:?}"
    );
    let rain = say(&s.client, "c-1", "Will there be rain? I want the forecast").await;
    assert!(rain.text.starts_with("The Weather for Oslo"), "{rain:?}");
    assert_eq!(s.food.lock().unwrap().len(), 1);
    assert_eq!(s.sky.lock().unwrap().len(), 1);
    // The user's capabilities went on: each sub-agent answered in A2UI v0.9.
    assert_eq!(s.food.lock().unwrap()[0].a2ui, Some(V));
    assert_eq!(s.sky.lock().unwrap()[0].a2ui, Some(V));
    assert_eq!(dinner.state, Some(TaskState::InputRequired));
}

#[tokio::test]
async fn both_agents_surfaces_reach_the_user_as_they_stream_with_distinct_ids() {
    let s = setup().await;
    let dinner = say(&s.client, "c-1", "Dinner for two tonight?").await;
    let rain = say(&s.client, "c-1", "rain forecast").await;
    assert_eq!(dinner.created(), [format!("{}:results", s.food_ns)]);
    assert_eq!(rain.created(), [format!("{}:main", s.sky_ns)]);
    // Every message of a surface carries the namespaced id, not only its creation.
    for message in dinner.a2ui.iter().chain(&rain.a2ui) {
        let body = message
            .as_object()
            .unwrap()
            .values()
            .find_map(|v| v.get("surfaceId"))
            .and_then(Value::as_str)
            .unwrap();
        assert!(body.contains(':'), "{message}");
    }
    assert!(
        dinner.a2ui.len() > 3,
        "streamed piece by piece: {}",
        dinner.a2ui.len()
    );
}

#[tokio::test]
async fn a_button_press_reaches_the_agent_whose_surface_it_was_with_its_own_data_model_only() {
    let s = setup().await;
    say(&s.client, "c-1", "Dinner for two tonight?").await;
    say(&s.client, "c-1", "rain forecast").await;
    // The renderer's data model holds both agents' surfaces.
    let model = json!({"version": "v0.9", "surfaces": {
        format!("{}:main", s.sky_ns): {"city": "Oslo"},
        format!("{}:results", s.food_ns): {"secret": "the restaurant's own"},
    }});
    let booked = send(
        &s.client,
        "c-1",
        vec![press(
            &format!("{}:results", s.food_ns),
            "select",
            json!({"restaurant": "Sakura House"}),
        )],
        Some(model.clone()),
    )
    .await;
    assert!(
        booked
            .text
            .starts_with("Great choice. Let's book a table at Sakura House"),
        "{booked:?}"
    );
    assert_eq!(booked.created(), [format!("{}:booking", s.food_ns)]);
    let refreshed = send(
        &s.client,
        "c-1",
        vec![press(
            &format!("{}:main", s.sky_ns),
            "refresh",
            json!({"city": "Oslo"}),
        )],
        Some(model),
    )
    .await;
    assert_eq!(refreshed.text, "Weather refreshed for \"Oslo\".");

    let food = s.food.lock().unwrap().last().cloned().unwrap();
    assert_eq!(food.acted_on, ["results"], "the id as the agent drew it");
    assert_eq!(
        food.data_model,
        Some(
            json!({"version": "v0.9", "surfaces": {"results": {"secret": "the restaurant's own"}}})
        )
    );
    let sky = s.sky.lock().unwrap().last().cloned().unwrap();
    assert_eq!(sky.acted_on, ["main"]);
    assert_eq!(
        sky.data_model,
        Some(json!({"version": "v0.9", "surfaces": {"main": {"city": "Oslo"}}}))
    );
}

#[tokio::test]
async fn a_conversation_keeps_each_sub_agents_context_and_callers_conversations_apart() {
    let s = setup().await;
    say(&s.client, "c-1", "Dinner for two tonight?").await;
    say(&s.client, "c-1", "rain forecast").await;
    say(&s.client, "c-1", "another restaurant for dinner").await;
    say(&s.client, "c-1", "and the forecast again").await;
    say(&s.client, "c-2", "Dinner for two tonight?").await;
    let food = s.food.lock().unwrap().clone();
    let sky = s.sky.lock().unwrap().clone();
    assert_eq!(food.len(), 3);
    assert_eq!(sky.len(), 2);
    assert_eq!(
        food[0].context_id, food[1].context_id,
        "one context per agent"
    );
    assert_eq!(sky[0].context_id, sky[1].context_id);
    assert_ne!(food[0].context_id, sky[0].context_id);
    assert_ne!(
        food[2].context_id, food[0].context_id,
        "another conversation, another context"
    );
    assert_eq!(food[1].text, "another restaurant for dinner");
}

#[tokio::test]
async fn text_naming_no_skill_stays_with_the_agent_that_answered_last() {
    let s = setup().await;
    say(&s.client, "c-1", "rain forecast").await;
    let next = say(&s.client, "c-1", "and tomorrow?").await;
    assert!(next.text.starts_with("The Weather for Oslo"), "{next:?}");
    let fresh = say(&s.client, "c-9", "hello").await;
    assert!(
        fresh.text.contains("could not tell which agent"),
        "{fresh:?}"
    );
    assert!(s.food.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_sub_agent_that_is_down_fails_the_turn_with_a_message_naming_it() {
    let mut s = setup().await;
    let _ = s.stop_sky.take().unwrap().send(());
    // Let the stopped server close its listener.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let turn = say(&s.client, "c-1", "rain forecast").await;
    assert_eq!(turn.state, Some(TaskState::Failed), "{turn:?}");
    assert!(
        turn.status
            .contains("The agent \"Weather\" could not be reached"),
        "{turn:?}"
    );
    assert!(!turn.status.contains("127.0.0.1"), "{turn:?}");
    // The other agent still answers.
    let dinner = say(&s.client, "c-1", "Dinner for two tonight?").await;
    assert!(dinner.text.starts_with("Here are three restaurants"));
}

#[tokio::test]
async fn with_one_sub_agent_every_turn_goes_to_it() {
    let log = Log::default();
    let (url, _stop) = weather("Weather", "Weather", log.clone()).await;
    let orchestrator = Orchestrator::builder().agent(url).connect().await.unwrap();
    let client = client(&orchestrate(orchestrator).await).await;
    let turn = say(&client, "c-1", "Dinner for two tonight?").await;
    assert!(turn.text.starts_with("The Weather for Oslo"), "{turn:?}");
    say(&client, "c-1", "hello").await;
    assert_eq!(log.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn two_agents_drawing_main_get_two_surfaces_and_each_press_its_own_agent() {
    let (sky, tides) = (Log::default(), Log::default());
    let (sky_url, _a) = weather("Weather", "Weather", sky.clone()).await;
    let (tide_url, _b) = weather("Tides", "Tide", tides.clone()).await;
    let orchestrator = Orchestrator::builder()
        .agent(sky_url)
        .agent(tide_url)
        .route(|request, _| request.text().contains("harbour").then_some(1))
        .connect()
        .await
        .unwrap();
    let client = client(&orchestrate(orchestrator).await).await;
    let a = say(&client, "c", "forecast").await;
    let b = say(&client, "c", "the harbour").await;
    assert_eq!(a.created(), ["weather:main"]);
    assert_eq!(b.created(), ["tides:main"]);
    let model = json!({"version": "v0.9", "surfaces": {
        "weather:main": {"city": "Oslo"}, "tides:main": {"city": "Bergen"}}});
    let pressed = send(
        &client,
        "c",
        vec![press("tides:main", "refresh", json!({"city": "Bergen"}))],
        Some(model),
    )
    .await;
    assert_eq!(pressed.text, "Tide refreshed for \"Bergen\".");
    let asked = tides.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        asked.data_model,
        Some(json!({"version": "v0.9", "surfaces": {"main": {"city": "Bergen"}}}))
    );
    assert_eq!(
        sky.lock().unwrap().len(),
        1,
        "the weather agent saw one turn"
    );
}

#[tokio::test]
async fn an_orchestrator_with_an_agent_that_is_down_at_start_names_it() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    let error = Orchestrator::builder()
        .agent(url.clone())
        .connect()
        .await
        .unwrap_err();
    assert!(error.to_string().contains(&url), "{error}");
}

#[cfg(feature = "llm")]
#[tokio::test]
async fn a_model_chooses_the_agent_through_a_tool_call_listing_the_agents_skills() {
    use a2ui_agent::llm::OpenAiChat;
    use llm_support::{Answer, MockModel, call, sse};

    let (food, sky) = (Log::default(), Log::default());
    let (food_url, _a) = restaurants(food.clone()).await;
    let (sky_url, _b) = weather("Weather", "Weather", sky.clone()).await;
    // The text names the restaurant agent's skills; the model says: the weather agent.
    let routed = call(
        0,
        Some("c1"),
        Some("route_to_agent"),
        r#"{"agent": "weather"}"#,
    );
    let model = MockModel::start(vec![Answer::Sse {
        body: sse(&[routed], "tool_calls"),
        pause: std::time::Duration::ZERO,
    }])
    .await;
    let orchestrator = Orchestrator::builder()
        .agent(food_url)
        .agent(sky_url)
        .model(OpenAiChat::builder(&model.base_url, "router").retries(
            0,
            std::time::Duration::ZERO,
            std::time::Duration::ZERO,
        ))
        .connect()
        .await
        .unwrap();
    let client = client(&orchestrate(orchestrator).await).await;
    let turn = say(&client, "c-1", "Dinner for two tonight?").await;
    assert!(turn.text.starts_with("The Weather for Oslo"), "{turn:?}");
    assert!(food.lock().unwrap().is_empty());

    let asked = &model.requests()[0];
    let tool = &asked["tools"][0]["function"];
    assert_eq!(tool["name"], "route_to_agent");
    assert_eq!(
        tool["parameters"]["properties"]["agent"]["enum"],
        json!(["restaurant-finder", "weather"])
    );
    assert_eq!(asked["tool_choice"]["function"]["name"], "route_to_agent");
    let system = asked["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Find restaurants") && system.contains("Weather forecast"),
        "{system}"
    );
}

#[tokio::test]
async fn a_v0_8_renderer_gets_namespaced_surfaces_and_its_user_action_reaches_the_owner() {
    let v08 = ProtocolVersion::V0_8;
    let food = Log::default();
    let (food_url, _a) = restaurants(food.clone()).await;
    let (sky_url, _b) = weather("Weather", "Weather", Log::default()).await;
    let orchestrator = Orchestrator::builder()
        .agent(food_url)
        .agent(sky_url)
        .connect()
        .await
        .unwrap();
    let client = client_in(v08, &orchestrate(orchestrator).await).await;
    let parts = vec![Part::text("Dinner for two tonight?")];
    let list = send_in(v08, &client, "c", parts, None).await;
    assert_eq!(list.created(), ["restaurant-finder:results"], "{list:?}");
    assert!(list.a2ui.iter().any(|m| m.get("surfaceUpdate").is_some()));
    let action = json!({"userAction": {"name": "select", "surfaceId": "restaurant-finder:results",
        "sourceComponentId": "r1_book", "timestamp": "2026-12-05T12:00:00Z",
        "context": {"restaurant": "Sakura House"}}});
    let metadata = json!({"mimeType": v08.mime_type()})
        .as_object()
        .cloned()
        .unwrap();
    let press = Part::Data {
        data: Arc::new(action.as_object().cloned().unwrap()),
        metadata: Some(Arc::new(metadata)),
    };
    let form = send_in(v08, &client, "c", vec![press], None).await;
    assert!(form.text.contains("Sakura House"), "{form:?}");
    assert_eq!(form.created(), ["restaurant-finder:booking"]);
    let asked = food.lock().unwrap().clone();
    assert_eq!(asked[0].a2ui, Some(v08), "the v0.8 capabilities went on");
    assert_eq!(asked[1].acted_on, ["results"]);
    assert_eq!(asked[0].context_id, asked[1].context_id);
}

#[tokio::test]
async fn canceling_the_orchestrators_task_cancels_the_sub_agents() {
    let food = Log::default();
    let mut skill = AgentSkill::new("find", "Find restaurants", "Books a table");
    skill.tags = vec!["dinner".into()];
    let card = AgentCard::builder("Restaurant finder").skill(skill).build();
    // The demo at its usual pace: its answer takes seconds to stream.
    let slow = logged(RestaurantFinder::new(DemoConfig::default()), food.clone());
    let (food_url, _a) = serve(card, slow).await;
    let orchestrator = Orchestrator::builder()
        .agent(food_url.as_str())
        .connect()
        .await
        .unwrap();
    let client = client(&orchestrate(orchestrator).await).await;
    let mut request = text_request("Dinner for two tonight?");
    let capabilities = json!({V.as_str(): {"supportedCatalogIds": [V.basic_catalog_id()]}});
    let mut metadata = Map::new();
    metadata.insert("a2uiClientCapabilities".into(), capabilities);
    request.message.metadata = Some(metadata);
    let mut events = client.send_streaming(request).await.unwrap();
    let mut task_id = None;
    while let Some(event) = events.next().await {
        match event.unwrap() {
            StreamEvent::Task(task) => task_id = Some(task.id),
            StreamEvent::StatusUpdate(update) if update.status.state == TaskState::Working => break,
            _ => {}
        }
    }
    client.cancel_task(&task_id.unwrap()).await.unwrap();
    let sub_task = food.lock().unwrap()[0].task_id.clone();
    let sub_agent = Client::connect(food_url).await.unwrap();
    let mut state = TaskState::Working;
    for _ in 0..100 {
        let query = a2ui_agent::a2a::TaskQuery {
            id: sub_task.clone(),
            history_length: Some(0),
        };
        state = sub_agent.get_task(query).await.unwrap().status.state;
        if state == TaskState::Canceled {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(state, TaskState::Canceled);
}

/// A resolver for the orchestrator's URL policy: `inside.example` is this machine, every
/// other name a public address.
struct Resolver;

impl a2ui_agent::pipeline::HostResolver for Resolver {
    fn resolve(
        &self,
        host: &str,
    ) -> futures::future::BoxFuture<'static, std::io::Result<Vec<std::net::IpAddr>>> {
        let ip: std::net::IpAddr = match host {
            "inside.example" => [127, 0, 0, 1].into(),
            _ => [93, 184, 215, 14].into(),
        };
        Box::pin(async move { Ok(vec![ip]) })
    }
}

/// A scripted A2A 1.0 sub-agent on a real socket, outside any of our servers (so nothing
/// screens what it sends): every streamed send is answered with a task drawing `image` in an
/// `Image` (or, with `component`, that component) on its surface `main`, then completed.
async fn scripted(component: &'static str, image: &'static str) -> String {
    use axum::routing::{get, post};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let card = json!({"name": "Camera", "description": "Shows a photo.", "version": "1",
        "supportedInterfaces": [{"url": base, "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "extensions": [{"uri": V.extension_uri()}]},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "photo", "name": "Photos", "description": "Shows a photo",
            "tags": ["photo"]}]});
    let rpc = move |body: axum::body::Bytes| async move {
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let id = request["id"].clone();
        let frame = |result: Value| {
            format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": id, "result": result})
            )
        };
        let a2ui = |message: Value| json!({"data": message, "mediaType": V.mime_type()});
        let drawn = vec![
            json!({"text": "Here it is."}),
            a2ui(
                json!({"version": "v0.9", "createSurface": {"surfaceId": "main",
                "catalogId": V.basic_catalog_id()}}),
            ),
            a2ui(
                json!({"version": "v0.9", "updateComponents": {"surfaceId": "main",
                "components": [{"id": "root", "component": component, "url": image}]}}),
            ),
        ];
        let (task, context) = ("sub-t", "sub-c");
        let status = |state: &str, parts: Option<Vec<Value>>| {
            let mut status = json!({"state": state});
            if let Some(parts) = parts {
                status["message"] = json!({"messageId": "r-1", "role": "ROLE_AGENT",
                    "parts": parts});
            }
            json!({"statusUpdate": {"taskId": task, "contextId": context, "status": status}})
        };
        let body = frame(json!({"task": {"id": task, "contextId": context,
            "status": {"state": "TASK_STATE_WORKING"}}}))
            + &frame(status("TASK_STATE_WORKING", Some(drawn)))
            + &frame(status("TASK_STATE_COMPLETED", None));
        ([("content-type", "text/event-stream")], body)
    };
    let router = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { axum::Json(card) }),
        )
        .route("/", post(rpc));
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

/// The user's turn `text` to an orchestrator in front of the scripted sub-agent drawing
/// `component` with `image`, served with the test's resolver.
async fn screened(component: &'static str, image: &'static str, text: &str) -> Turn {
    let orchestrator = Orchestrator::builder()
        .agent(scripted(component, image).await)
        .connect()
        .await
        .unwrap();
    let card = orchestrator.card("Concierge").build();
    let (url, stop) = serve_with(card, orchestrator, |builder| {
        builder.ui_host_resolver(Resolver)
    })
    .await;
    let turn = say(&client(&url).await, "c", text).await;
    drop(stop);
    turn
}

/// Whether `turn` drew its image (the `updateComponents` reached the user).
fn drew(turn: &Turn) -> bool {
    turn.a2ui
        .iter()
        .any(|m| m.get("updateComponents").is_some())
}

#[tokio::test]
async fn a_sub_agents_honest_image_from_the_users_turn_reaches_the_user() {
    let url = "https://photos.example/cat.png";
    let turn = screened("Image", url, &format!("Show me {url} please")).await;
    assert!(drew(&turn), "{turn:?}");
    assert_eq!(turn.created(), ["camera:main"]);
    assert!(!turn.text.contains("not shown"), "{turn:?}");
    assert_eq!(
        turn.state,
        Some(TaskState::Completed),
        "as the sub-agent's task ended"
    );
}

#[tokio::test]
async fn a_sub_agents_javascript_image_is_refused_with_a_note_naming_the_agent() {
    let url = "javascript:alert(document.cookie)";
    let turn = screened("Image", url, &format!("Show me {url}")).await;
    assert!(!drew(&turn), "{turn:?}");
    assert_eq!(turn.created(), ["camera:main"], "the rest still goes");
    assert!(
        turn.text.contains("agent \"Camera\" was not shown"),
        "{turn:?}"
    );
    assert!(turn.text.contains("scheme javascript"), "{turn:?}");
    assert!(
        !turn.text.contains("127.0.0.1"),
        "no address of the sub-agent: {turn:?}"
    );
}

#[tokio::test]
async fn a_sub_agents_image_on_a_host_resolving_to_this_machine_is_refused() {
    let url = "https://inside.example/cam.png";
    let turn = screened("Image", url, &format!("Show me {url}")).await;
    assert!(!drew(&turn), "{turn:?}");
    assert!(
        turn.text.contains("agent \"Camera\" was not shown"),
        "{turn:?}"
    );
    assert!(turn.text.contains("resolves to"), "{turn:?}");
    assert!(
        !turn.text.contains("127.0.0.1"),
        "the inside address stays in the log"
    );
}

#[tokio::test]
async fn a_sub_agents_image_url_the_user_never_gave_is_refused() {
    let turn = screened(
        "Image",
        "https://photos.example/cat.png?d=secret",
        "Show a cat",
    )
    .await;
    assert!(!drew(&turn), "{turn:?}");
    assert!(
        turn.text.contains("did not appear in the conversation"),
        "{turn:?}"
    );
}

#[tokio::test]
async fn a_sub_agents_component_the_catalog_lacks_is_refused() {
    let url = "https://photos.example/cat.png";
    let turn = screened("Hologram", url, &format!("Show me {url}")).await;
    assert!(!drew(&turn), "{turn:?}");
    assert!(
        turn.text.contains("agent \"Camera\" was not shown"),
        "{turn:?}"
    );
}

/// A sub-agent that draws a surface with a button and ends its task `completed`; pressed,
/// it says so and waits for input; told "fail", it fails.
async fn finishing(log: Log) -> String {
    let card = AgentCard::builder("Clock")
        .description("Tells the time.")
        .build();
    let agent = |request: Request| async move {
        if !request.actions().is_empty() {
            return Ok::<_, AgentError>(Reply::input_required(vec![Part::text(
                "Which time zone?",
            )]));
        }
        if request.text() == "fail" {
            return Err(AgentError::with_detail(
                "the clock is broken",
                std::io::Error::other("secret detail at 10.0.0.7"),
            ));
        }
        let drawn = json!([
            {"version": "v0.9", "createSurface": {"surfaceId": "main",
                "catalogId": V.basic_catalog_id()}},
            {"version": "v0.9", "updateComponents": {"surfaceId": "main", "components": [
                {"id": "root", "component": "Button", "child": "label",
                 "action": {"event": {"name": "zone"}}},
                {"id": "label", "component": "Text", "text": "Zone"}]}},
        ]);
        Ok(
            Reply::text(format!("It is noon.<a2ui-json>{drawn}</a2ui-json>"))
                .with_final_state(TaskState::Completed),
        )
    };
    let (url, stop) = serve(card, logged(agent, log)).await;
    std::mem::forget(stop);
    url
}

#[tokio::test]
async fn a_turn_ends_as_the_sub_agents_task_did_and_the_conversation_goes_on() {
    let log = Log::default();
    let orchestrator = Orchestrator::builder()
        .agent(finishing(log.clone()).await)
        .connect()
        .await
        .unwrap();
    let client = client(&orchestrate(orchestrator).await).await;
    let done = say(&client, "c", "What time is it?").await;
    assert_eq!(done.state, Some(TaskState::Completed), "{done:?}");
    assert_eq!(done.created(), ["clock:main"]);
    // The orchestrator's task is over; the press starts a new one in the same context and
    // still reaches the agent, in its own context there.
    let asked = send(
        &client,
        "c",
        vec![press("clock:main", "zone", json!({}))],
        None,
    )
    .await;
    assert_eq!(asked.state, Some(TaskState::InputRequired), "{asked:?}");
    assert_eq!(asked.text, "Which time zone?", "{asked:?}");
    let failed = say(&client, "c", "fail").await;
    assert_eq!(failed.state, Some(TaskState::Failed), "{failed:?}");
    assert!(failed.status.contains("\"Clock\" failed"), "{failed:?}");
    assert!(
        !failed.status.contains("10.0.0.7"),
        "the detail stays in the log"
    );
    let calls = log.lock().unwrap().clone();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[1].acted_on, ["main"]);
    assert!(calls.iter().all(|c| c.context_id == calls[0].context_id));
    assert_ne!(
        calls[0].task_id, calls[1].task_id,
        "a completed task is not continued"
    );
}
