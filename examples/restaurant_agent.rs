//! A real, tool-using UI agent: a restaurant finder that looks restaurants up, checks tables
//! and books them through tools over a small local data set, and draws everything it shows
//! (result cards, the booking form, the confirmation) with A2UI.
//!
//! ```text
//! cargo run --release --example restaurant_agent -- \
//!     --model-url http://127.0.0.1:8081/v1 --model qwen2.5-coder-1.5b-instruct --port 8080
//! # then open http://127.0.0.1:8080/ (the chat page) and ask "Thai food in Paris?"
//! ```
//!
//! `--format express` has the model write A2UI Express instead of JSON (v0.9; the prompt is
//! a fifth of the tokens, which a small local model reads in time); `--grammar` sends its
//! grammar to a llama.cpp server for the rounds that offer no tool. `scripts/restaurant-real-model.sh`
//! runs it against the local real model and drives the page in Chromium
//! (`web/test/restaurant.mjs`): ask, Book, fill the form, Confirm, and look for the booking id.
//!
//! Any OpenAI-compatible server that supports tool calls works (`OPENAI_API_KEY` is sent
//! when set). The flow the model is told to follow: `search_restaurants`, one card per result
//! with a Book button; Book opens a form (name, party size, time); Confirm calls
//! `check_availability`, then `book_table`, and shows the confirmation. The tools are plain
//! async Rust functions below; each call shows in the chat as one "Called …" line.
//!
//! With `--format express` it is set up for a small local model, which follows what it read
//! last and copies what it was shown: each step after a tool's result or a button's action
//! is told right there ([`Tool::guide`], `OpenAiChatBuilder::action_guide`), as a block to
//! fill in, and none of the task's history goes to the model
//! (`OpenAiChatBuilder::max_history`). Each step carries what the next needs (the Book
//! button's context names the restaurant; Confirm's holds the whole booking), and Confirm
//! goes straight to `book_table`, which refuses a full restaurant itself. The server makes
//! each step do what it is for (`OpenAiChatBuilder::tool_choice`, `action_tool_choice`):
//! a question must search, Confirm must book, Book is offered no tool and draws.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2ui_agent::A2uiServer;
use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::{OpenAiChat, RepairTurns, Tool, ToolChoice, ToolError};
use a2ui_agent::pipeline::OnInvalid;
use serde_json::{Value, json};

/// One restaurant of the data set.
struct Restaurant {
    id: &'static str,
    name: &'static str,
    cuisine: &'static str,
    city: &'static str,
    /// Out of 5: an `f64`, so the tool result says 4.6 (as an `f32` it said 4.599999904632568).
    rating: f64,
    price: &'static str,
    /// Tables free per evening slot.
    tables: u32,
}

const RESTAURANTS: &[Restaurant] = &[
    Restaurant {
        id: "r1",
        name: "Baan Thai",
        cuisine: "thai",
        city: "Paris",
        rating: 4.6,
        price: "€€",
        tables: 2,
    },
    Restaurant {
        id: "r2",
        name: "Siam Garden",
        cuisine: "thai",
        city: "Paris",
        rating: 4.2,
        price: "€",
        tables: 0,
    },
    Restaurant {
        id: "r3",
        name: "Trattoria Alba",
        cuisine: "italian",
        city: "Paris",
        rating: 4.7,
        price: "€€€",
        tables: 3,
    },
    Restaurant {
        id: "r4",
        name: "Sakura House",
        cuisine: "japanese",
        city: "Lyon",
        rating: 4.5,
        price: "€€",
        tables: 1,
    },
    Restaurant {
        id: "r5",
        name: "Le Petit Bistro",
        cuisine: "french",
        city: "Lyon",
        rating: 4.4,
        price: "€€",
        tables: 4,
    },
    Restaurant {
        id: "r6",
        name: "Thai Orchid",
        cuisine: "thai",
        city: "Lyon",
        rating: 4.1,
        price: "€",
        tables: 2,
    },
];

const SLOTS: &[&str] = &["18:00", "19:00", "20:00", "21:00"];

/// What the model is told besides the A2UI prompt. Each step that follows a tool's result
/// is told by that tool's guide instead (below), right after the result.
const INSTRUCTIONS: &str = r#"You are a restaurant booking assistant. Use the tools for every fact: never invent restaurants, tables or bookings. Keep text short.
1. When the user asks for restaurants, your answer is only the search_restaurants call, with no block and no text, like this:
<tool_call>
{"name": "search_restaurants", "arguments": {"cuisine": "italian", "city": "Lyon"}}
</tool_call>
2. When you receive the action "book", show a form for that restaurant: a TextField for the name, a TextField for the party size, a TextField for the time (18:00 to 21:00), and a Button labelled Confirm whose action is named "confirm" with the restaurant id, name, party size and time in its context (bound to the form's fields).
3. When you receive "confirm", call check_availability, then book_table if a table is free, and show the booking or what went wrong."#;

/// What the model is told after a search result, when it writes Express. Qwen2.5-Coder-1.5B
/// given the result with nothing after it answered with an invented call in its chat
/// template's `<tool_response>` tags; shown a finished example block in its instructions, it
/// skipped the search and drew the example's restaurants. A block to fill in, right after
/// the result, it fills in.
const SHOW_RESULTS: &str = r#"Now show the user the restaurants of the result above: one Card per restaurant, all in one <a2ui> block, written like this with each {field} replaced by the restaurant's own value:
<a2ui>
surface("results")
root = Column([card1, card2])
card1 = Card(Column([Text("{name}", variant="h3"), Text("{cuisine}, rated {rating}, {price}"), Button(Text("Book"), action=Event("book", {restaurantId: "{id}", name: "{name}"}))]))
card2 = Card(Column([Text("{name}", variant="h3"), Text("{cuisine}, rated {rating}, {price}"), Button(Text("Book"), action=Event("book", {restaurantId: "{id}", name: "{name}"}))]))
</a2ui>"#;

/// What the model is told when the user pressed Book, when it writes Express: given the
/// action with the form described in words only, the 1.5B model drew its cards again.
const SHOW_FORM: &str = r#"Now show the booking form for the restaurant of the action above, in one <a2ui> block, written like this with {restaurantId} replaced by the action's restaurantId. The $/booking/... bindings stay as they are: the user fills them in.
<a2ui>
surface("booking")
root = Column([title, guest, size, time, confirm])
title = Text("Book a table", variant="h3")
guest = TextField("Name", $/booking/name)
size = TextField("Party size", $/booking/size, variant="number")
time = TextField("Time (18:00 to 21:00)", $/booking/time)
confirm = Button(Text("Confirm"), action=Event("confirm", {restaurantId: "{restaurantId}", name: $/booking/name, partySize: $/booking/size, time: $/booking/time}))
</a2ui>"#;

/// What the model is told when the user pressed Confirm. `book_table` itself refuses a full
/// restaurant (a result the model reads), so a small model is not asked to choose between
/// two steps: told "if available, call book_table, else say it is full" after a check that
/// said a table was free, the 1.5B model said it was full. Told "Now book the table: your
/// answer is only the book_table call, with …", it echoed that sentence before the call,
/// so the call went out as text; worded so, it wrote the call alone in 4 of 4 replays.
const BOOK: &str = r#"Your answer is only this call, with {restaurantId}, {name}, {partySize} and {time} replaced by those of the action above:
<tool_call>
{"name": "book_table", "arguments": {"restaurantId": "{restaurantId}", "name": "{name}", "partySize": {partySize}, "time": "{time}"}}
</tool_call>"#;

/// What the model is told after a booking was made, when it writes Express.
const SHOW_BOOKING: &str = r#"Now show the user the booking of the result above, in one <a2ui> block, written like this with each {field} replaced by the booking's own value:
<a2ui>
surface("booked")
root = Card(Column([Text("Booked: {bookingId}", variant="h3"), Text("{restaurant} at {time}, {partySize} people, for {name}")]))
</a2ui>"#;

/// The bookings made so far.
#[derive(Default)]
struct Bookings {
    made: Mutex<Vec<Value>>,
}

fn restaurant(id: &str) -> Result<&'static Restaurant, ToolError> {
    RESTAURANTS
        .iter()
        .find(|r| r.id == id)
        .ok_or_else(|| ToolError::new(format!("no restaurant has the id '{id}'")))
}

fn summary(r: &Restaurant) -> Value {
    json!({"id": r.id, "name": r.name, "cuisine": r.cuisine, "city": r.city,
        "rating": r.rating, "price": r.price})
}

fn search() -> Tool {
    Tool::new(
        "search_restaurants",
        "Find restaurants by cuisine and/or city. Returns a list of restaurants with their ids.",
        json!({"type": "object", "properties": {
            "cuisine": {"type": "string", "description": "e.g. thai, italian, japanese, french"},
            "city": {"type": "string", "description": "e.g. Paris, Lyon"}}}),
        |args: Value| async move {
            let wanted = |key: &str, value: &str| {
                args[key]
                    .as_str()
                    .is_none_or(|asked| asked.trim().eq_ignore_ascii_case(value))
            };
            let found: Vec<Value> = RESTAURANTS
                .iter()
                .filter(|r| wanted("cuisine", r.cuisine) && wanted("city", r.city))
                .map(summary)
                .collect();
            Ok(json!({"restaurants": found}))
        },
    )
}

fn check_availability() -> Tool {
    Tool::new(
        "check_availability",
        "Whether a restaurant has a table free at a time (18:00, 19:00, 20:00 or 21:00).",
        json!({"type": "object", "required": ["restaurantId", "time"], "properties": {
            "restaurantId": {"type": "string"}, "time": {"type": "string"},
            "partySize": {"type": "integer"}}}),
        |args: Value| async move {
            let r = restaurant(args["restaurantId"].as_str().unwrap_or_default())?;
            let time = args["time"].as_str().unwrap_or_default();
            if !SLOTS.contains(&time) {
                return Err(ToolError::new(format!(
                    "the times are {}",
                    SLOTS.join(", ")
                )));
            }
            Ok(json!({"restaurant": r.name, "time": time, "available": r.tables > 0}))
        },
    )
}

fn book_table(bookings: Arc<Bookings>) -> Tool {
    Tool::new(
        "book_table",
        "Books a table. Returns the booking with its id.",
        json!({"type": "object", "required": ["restaurantId", "name", "partySize", "time"],
            "properties": {"restaurantId": {"type": "string"}, "name": {"type": "string"},
            "partySize": {"type": "integer"}, "time": {"type": "string"}}}),
        move |args: Value| {
            let bookings = bookings.clone();
            async move {
                let r = restaurant(args["restaurantId"].as_str().unwrap_or_default())?;
                let name = args["name"].as_str().filter(|n| !n.trim().is_empty());
                let name = name.ok_or_else(|| ToolError::new("say whose name the table is in"))?;
                let size = match &args["partySize"] {
                    Value::Number(n) => n.as_u64(),
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                };
                let size = size
                    .filter(|s| (1..=12).contains(s))
                    .ok_or_else(|| ToolError::new("the party size is 1 to 12 people"))?;
                let time = args["time"].as_str().unwrap_or_default();
                if !SLOTS.contains(&time) {
                    return Err(ToolError::new(format!(
                        "the times are {}",
                        SLOTS.join(", ")
                    )));
                }
                if r.tables == 0 {
                    return Err(ToolError::new(format!("{} is full at {time}", r.name)));
                }
                let mut made = bookings.made.lock().unwrap_or_else(|p| p.into_inner());
                let booking = json!({"bookingId": format!("B{:03}", made.len() + 1),
                    "restaurant": r.name, "name": name, "partySize": size, "time": time});
                made.push(booking.clone());
                Ok(booking)
            }
        },
    )
}

/// `--name value` from the command line.
fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|arg| arg == name)
        .and_then(|at| args.get(at + 1).cloned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The log says what a client is shown only the id of ("… (error id …)").
    tracing_subscriber::fmt().with_target(false).init();
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: restaurant_agent --model-url URL --model NAME [--port N] \
                 [--format direct|express] [--grammar]";
    let url = flag(&args, "--model-url").ok_or(usage)?;
    let name = flag(&args, "--model").ok_or(usage)?;
    let port: u16 = flag(&args, "--port")
        .unwrap_or_else(|| "8080".into())
        .parse()?;
    let express = match flag(&args, "--format").as_deref() {
        None | Some("direct") => false,
        Some("express") => true,
        Some(_) => return Err(usage.into()),
    };
    let grammar = args.iter().any(|arg| arg == "--grammar");
    let bookings = Arc::new(Bookings::default());
    let model = OpenAiChat::builder(url, &name)
        .instructions(INSTRUCTIONS)
        .temperature(0.2)
        .repair_temperature(0.7)
        // An Express answer is read when it ends, and a small model asked again without its
        // rejected answer mends it more often than one shown it.
        .repair_turns(if express {
            RepairTurns::Retry
        } else {
            RepairTurns::Continue
        })
        .first_token_timeout(Duration::from_secs(900));
    // The guides are blocks of Express; a model writing JSON is a larger one, told in words.
    let (search, check, book) = if express {
        (
            search().guide(SHOW_RESULTS),
            check_availability(),
            book_table(bookings).guide(SHOW_BOOKING),
        )
    } else {
        (search(), check_availability(), book_table(bookings))
    };
    let mut model = model.tool(search).tool(check).tool(book).max_tool_rounds(4);
    if express {
        // Each step carries what it needs (an action's context, the round's results), and
        // a small model shown its earlier answers writes them again (with the last two
        // messages, it drew the form again where it was told to check a table).
        model = model
            .action_guide("book", SHOW_FORM)
            .action_guide("confirm", BOOK)
            .max_history(0)
            // A small model that runs on writes until its context is full.
            .max_tokens(800)
            // What each step must do, where the server can make it: a question is searched
            // (the 1.5B model copied the tool list out in 3 of 12 first turns), Confirm books
            // with book_table (it echoed the guide before the call, which then went out as
            // text; made to call any tool, it searched again), and Book only draws, with no
            // tool offered, so a grammar can shape its form.
            .tool_choice(ToolChoice::Required)
            .action_tool_choice("book", ToolChoice::None)
            .action_tool_choice("confirm", ToolChoice::Tool("book_table".into()));
    }
    if grammar {
        // llama.cpp's member; a round that offers tools goes without it.
        model = model.constrain("grammar");
    }
    if let Ok(key) = std::env::var("OPENAI_API_KEY") {
        model = model.api_key(key);
    }
    let server = A2uiServer::builder(
        AgentCard::builder(format!("Restaurant finder ({name})"))
            .description("Finds restaurants, checks tables and books them.")
            .skill(AgentSkill::new(
                "book",
                "Book a table",
                "Finds restaurants and books a table",
            ))
            .build(),
        model.build()?,
    )
    .generator(if express {
        // A fifth of the prompt's tokens: what a small local model reads in time.
        Generator::builder(ProtocolVersion::V0_9)
            .format(Express::new())
            .build()?
    } else {
        Generator::v0_9()
    })
    .generator(Generator::v0_8())
    .on_invalid(OnInvalid::Repair)
    .max_repairs(2)
    .web_page(true)
    .build()?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("listening on http://{}/", listener.local_addr()?);
    axum::serve(listener, server.router()).await?;
    Ok(())
}
