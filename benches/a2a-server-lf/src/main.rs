//! The official Rust A2A server, `a2a-server-lf`, with the server benchmark's trivial agents,
//! so `benches/server.rs` can put the same load on it and on a2ui-agent in one run.
//!
//! - `echo` (default): a `working` update, then `input-required` with the agent message
//!   "echo: <user text>", as the benchmark's own echo agent answers;
//! - `silent`: a `working` update, then nothing until cancelled (holds streams open).
//!
//! Usage: `a2a-server-lf-bench-agent [echo|silent] [grpc]`. It binds 127.0.0.1 on a free
//! port, prints `listening on http://127.0.0.1:PORT/` and exits when its standard input
//! closes. With `grpc` it serves the same handler over the SDK's gRPC binding (`a2a-grpc`,
//! tonic) instead of JSON-RPC.
//! Built by `scripts/bench-server.sh`; never part of the crate's tests.

use std::sync::Arc;

use a2a::{
    A2AError, AgentCapabilities, AgentCard, AgentInterface, Message, Part, Role, StreamResponse,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use a2a_grpc::GrpcHandler;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::{
    AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore, StaticAgentCard,
};
use futures::stream::{self, BoxStream, StreamExt};
use tokio_stream::wrappers::TcpListenerStream;

struct Trivial {
    silent: bool,
}

fn update(ctx: &ExecutorContext, state: TaskState, message: Option<Message>) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: ctx.task_id.clone(),
        context_id: ctx.context_id.clone(),
        status: TaskStatus {
            state,
            message,
            timestamp: None,
        },
        metadata: None,
    })
}

impl AgentExecutor for Trivial {
    fn execute(
        &self,
        ctx: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let working = update(&ctx, TaskState::Working, None);
        if self.silent {
            return stream::once(async move { Ok(working) })
                .chain(stream::pending())
                .boxed();
        }
        let text = ctx
            .message
            .as_ref()
            .map(|message| {
                message
                    .parts
                    .iter()
                    .filter_map(Part::as_text)
                    .collect::<String>()
            })
            .unwrap_or_default();
        let mut reply = Message::new(Role::Agent, vec![Part::text(format!("echo: {text}"))]);
        reply.task_id = Some(ctx.task_id.clone());
        reply.context_id = Some(ctx.context_id.clone());
        let answer = update(&ctx, TaskState::InputRequired, Some(reply));
        stream::iter([Ok(working), Ok(answer)]).boxed()
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let canceled = update(&ctx, TaskState::Canceled, None);
        stream::once(async move { Ok(canceled) }).boxed()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let silent = std::env::args().nth(1).as_deref() == Some("silent");
    let grpc = std::env::args().nth(2).as_deref() == Some("grpc");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    if grpc {
        let handler = Arc::new(DefaultRequestHandler::new(
            Trivial { silent },
            InMemoryTaskStore::new(),
        ));
        let service = A2aServiceServer::new(GrpcHandler::new(handler));
        println!("listening on {url}");
        exit_when_stdin_closes();
        // No Nagle, as our server: a unary answer is several small HTTP/2 writes (tonic's
        // own `tcp_nodelay` applies only to the listeners it binds itself).
        let incoming = TcpListenerStream::new(listener).map(|accepted| {
            accepted.inspect(|tcp| {
                let _ = tcp.set_nodelay(true);
            })
        });
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(incoming)
            .await?;
        return Ok(());
    }
    let card = AgentCard {
        name: "a2a-server-lf".into(),
        description: "a2a-server-lf with the benchmark's trivial agent".into(),
        version: "1.0.0".into(),
        supported_interfaces: vec![AgentInterface::new(url.clone(), "JSONRPC")],
        capabilities: AgentCapabilities {
            streaming: Some(true),
            ..Default::default()
        },
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: Vec::new(),
        provider: None,
        documentation_url: None,
        icon_url: None,
        security_schemes: None,
        security_requirements: None,
        signatures: None,
    };
    let handler = Arc::new(DefaultRequestHandler::new(
        Trivial { silent },
        InMemoryTaskStore::new(),
    ));
    let app = a2a_server::jsonrpc::jsonrpc_router(handler).merge(
        a2a_server::agent_card::agent_card_router(Arc::new(StaticAgentCard::new(card))),
    );
    println!("listening on {url}");
    exit_when_stdin_closes();
    axum::serve(listener, app).await?;
    Ok(())
}

/// The benchmark holds our stdin; when it goes away, so do we.
fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
}
