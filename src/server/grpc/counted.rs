//! The request metrics of the gRPC binding, counted around tonic's service rather than in
//! each method, so that a call tonic itself refuses (a message over the size limit, bytes
//! that are not the method's protobuf, a method the service does not have) is counted as
//! well as the ones our methods answer.
//!
//! The outcome is read from the answer's head: a refused call is "trailers-only", its
//! `grpc-status` among the headers; a unary answer or a stream that opened has none there
//! (its status comes in the trailers), so it counts as `ok`, as a stream that opens does
//! on the other bindings.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tonic::Status;

use super::status;
use crate::observe::{Binding, Meter, method_label};

/// Middleware: runs the call, then counts it under binding `a2a-grpc`, its method and
/// its outcome.
pub(crate) async fn count(State(meter): State<Meter>, request: Request, next: Next) -> Response {
    let method = method_of(request.uri().path());
    let response = next.run(request).await;
    let outcome =
        Status::from_header_map(response.headers()).map_or("ok", |status| status::outcome(&status));
    meter.request(Binding::Grpc, method, outcome);
    response
}

/// The method a request `path` calls (its last segment), as a metrics label.
fn method_of(path: &str) -> &'static str {
    method_label(path.rsplit('/').next().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::method_of;

    #[test]
    fn a_method_is_named_by_the_last_segment_and_unknown_names_are_other() {
        assert_eq!(method_of("/lf.a2a.v1.A2AService/GetTask"), "GetTask");
        assert_eq!(method_of("/t1/lf.a2a.v1.A2AService/ListTasks"), "ListTasks");
        assert_eq!(method_of("/lf.a2a.v1.A2AService/Bogus"), "other");
        assert_eq!(method_of("/lf.a2a.v1.A2AService/gettask"), "other");
        assert_eq!(method_of(""), "other");
    }
}
