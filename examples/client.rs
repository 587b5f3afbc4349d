//! Talks to any A2A agent: streams one message's answer and prints the agent's text as it
//! comes, picking the stream up again if the connection drops.
//!
//! ```text
//! cargo run --example echo &                                  # an agent on :8080
//! cargo run --example client --features client -- http://127.0.0.1:8080/ "hello there"
//! ```

use a2ui_agent::a2a::StreamEvent;
use a2ui_agent::client::{Client, text_request};
use futures::StreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080/".into());
    let text = args.next().unwrap_or_else(|| "hello".into());

    let client = Client::connect(url).await?;
    println!("{} over {}", client.card().await?.name, client.transport());
    let stream = client.send_streaming(text_request(&text)).await?;
    let mut events = stream.resuming(&client);
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::StatusUpdate(update) => {
                if let Some(message) = &update.status.message {
                    print!("{}", message.text());
                }
                if update.is_final {
                    println!("\n[{}]", update.status.state);
                }
            }
            StreamEvent::Message(message) => println!("{}", message.text()),
            StreamEvent::Task(_) | StreamEvent::ArtifactUpdate(_) => {}
        }
    }
    Ok(())
}
