//! The interfaces the client speaks, which one a card offers, and each one's wire: method
//! names and the codec (0.3 or 1.0) its requests and answers go through.

use std::fmt;

use serde_json::Value;

use super::error::ClientError;
use crate::a2a::card::{AgentCard, AgentInterface, binding};
use crate::a2a::{SendRequest, StreamEvent, Task, TaskQuery, v0_3, v1_0};

/// An A2A interface the client can call.
///
/// # Example
///
/// ```
/// use a2ui_agent::client::Transport;
///
/// assert_eq!(Transport::HttpJson1_0.binding(), "HTTP+JSON");
/// assert_eq!(Transport::JsonRpc0_3.protocol_version(), "0.3");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// JSON-RPC 2.0, A2A 1.0 (`SendMessage`, ...).
    JsonRpc1_0,
    /// The HTTP+JSON binding of A2A 1.0 (`POST /message:send`, ...).
    HttpJson1_0,
    /// JSON-RPC 2.0, A2A 0.3 (`message/send`, ...).
    JsonRpc0_3,
}

impl Transport {
    /// Every transport, in the default order of preference.
    pub const ALL: [Transport; 3] = [
        Transport::JsonRpc1_0,
        Transport::HttpJson1_0,
        Transport::JsonRpc0_3,
    ];

    /// The card's `protocolBinding` name.
    pub fn binding(self) -> &'static str {
        match self {
            Transport::JsonRpc1_0 | Transport::JsonRpc0_3 => binding::JSONRPC,
            Transport::HttpJson1_0 => binding::HTTP_JSON,
        }
    }

    /// The protocol version, `Major.Minor`.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Transport::JsonRpc1_0 | Transport::HttpJson1_0 => "1.0",
            Transport::JsonRpc0_3 => "0.3",
        }
    }

    /// Whether `interface` is this transport (binding without case, version by
    /// `Major.Minor`: `0.3.0` is 0.3).
    fn offered_by(self, interface: &AgentInterface) -> bool {
        let mut numbers = interface.protocol_version.trim().split('.');
        let version = match (numbers.next(), numbers.next()) {
            (Some(major), Some(minor)) => format!("{major}.{minor}"),
            (Some(major), None) => format!("{major}.0"),
            _ => return false,
        };
        interface
            .protocol_binding
            .eq_ignore_ascii_case(self.binding())
            && version == self.protocol_version()
    }

    /// Whether this is one of the 1.0 transports.
    pub(super) fn is_1_0(self) -> bool {
        self != Transport::JsonRpc0_3
    }

    /// The JSON-RPC method of `operation`, `None` where the version has none.
    pub(super) fn method(self, operation: Operation) -> Option<&'static str> {
        let (old, new) = match operation {
            Operation::Send => ("message/send", "SendMessage"),
            Operation::Stream => ("message/stream", "SendStreamingMessage"),
            Operation::Get => ("tasks/get", "GetTask"),
            Operation::List => ("", "ListTasks"),
            Operation::Cancel => ("tasks/cancel", "CancelTask"),
            Operation::Subscribe => ("tasks/resubscribe", "SubscribeToTask"),
            Operation::ExtendedCard => {
                ("agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard")
            }
            Operation::PushSet => (
                "tasks/pushNotificationConfig/set",
                "CreateTaskPushNotificationConfig",
            ),
            Operation::PushGet => (
                "tasks/pushNotificationConfig/get",
                "GetTaskPushNotificationConfig",
            ),
            Operation::PushList => (
                "tasks/pushNotificationConfig/list",
                "ListTaskPushNotificationConfigs",
            ),
            Operation::PushDelete => (
                "tasks/pushNotificationConfig/delete",
                "DeleteTaskPushNotificationConfig",
            ),
        };
        let name = if self.is_1_0() { new } else { old };
        (!name.is_empty()).then_some(name)
    }

    /// The params of a send.
    pub(super) fn send_params(self, request: &SendRequest) -> Value {
        if self.is_1_0() {
            v1_0::encode_send_params(request)
        } else {
            v0_3::encode_send_params(request)
        }
    }

    /// The params of a get.
    pub(super) fn query_params(self, query: &TaskQuery) -> Value {
        if self.is_1_0() {
            v1_0::encode_query_params(query)
        } else {
            v0_3::encode_query_params(query)
        }
    }

    /// The result of a send: a task or a message.
    pub(super) fn send_result(self, result: &Value) -> Result<StreamEvent, ClientError> {
        if self.is_1_0() {
            v1_0::decode_send_result(result).map_err(bad)
        } else {
            v0_3::decode_send_result(result).map_err(bad)
        }
    }

    /// One stream event.
    pub(super) fn event(self, result: &Value) -> Result<StreamEvent, ClientError> {
        if self.is_1_0() {
            v1_0::decode_event(result).map_err(bad)
        } else {
            v0_3::decode_event(result).map_err(bad)
        }
    }

    /// A task (get, cancel).
    pub(super) fn task(self, result: &Value) -> Result<Task, ClientError> {
        if self.is_1_0() {
            v1_0::decode_task(result).map_err(bad)
        } else {
            v0_3::decode_task(result, "result").map_err(bad)
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.binding(), self.protocol_version())
    }
}

fn bad(error: impl fmt::Display) -> ClientError {
    ClientError::BadAnswer(error.to_string())
}

/// An operation of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operation {
    Send,
    Stream,
    Get,
    List,
    Cancel,
    Subscribe,
    ExtendedCard,
    PushSet,
    PushGet,
    PushList,
    PushDelete,
}

/// The first transport of `prefer` that `card` lists, with its interface (whose URL parses
/// as http or https).
///
/// # Errors
///
/// [`ClientError::BadCard`] when the card lists none of them.
pub(super) fn choose(
    card: &AgentCard,
    prefer: &[Transport],
) -> Result<(Transport, url::Url), ClientError> {
    for transport in prefer {
        let offered = card
            .supported_interfaces
            .iter()
            .filter(|interface| transport.offered_by(interface))
            .find_map(|interface| {
                url::Url::parse(&interface.url)
                    .ok()
                    .filter(|url| matches!(url.scheme(), "http" | "https"))
            });
        if let Some(url) = offered {
            return Ok((*transport, url));
        }
    }
    let listed: Vec<String> = card
        .supported_interfaces
        .iter()
        .map(|i| {
            format!(
                "{} {} at {:?}",
                i.protocol_binding, i.protocol_version, i.url
            )
        })
        .collect();
    let wanted: Vec<String> = prefer.iter().map(Transport::to_string).collect();
    Err(ClientError::BadCard(format!(
        "it offers none of the interfaces asked for ({}); it lists [{}]",
        wanted.join(", "),
        listed.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_preferred_interface_the_card_lists_is_chosen() {
        let card = AgentCard::builder("a").url("http://h:1/").build();
        let (transport, url) = choose(&card, &Transport::ALL).unwrap();
        assert_eq!(
            (transport, url.as_str()),
            (Transport::JsonRpc1_0, "http://h:1/")
        );
        let (transport, url) = choose(&card, &[Transport::HttpJson1_0]).unwrap();
        assert_eq!(
            (transport, url.as_str()),
            (Transport::HttpJson1_0, "http://h:1/")
        );
        let mut old = card.clone();
        old.supported_interfaces
            .retain(|i| i.protocol_version == "0.3");
        old.supported_interfaces[0].protocol_version = "0.3.0".into();
        assert_eq!(
            choose(&old, &Transport::ALL).unwrap().0,
            Transport::JsonRpc0_3
        );
        let error = choose(&old, &[Transport::HttpJson1_0]).unwrap_err();
        assert!(
            error.to_string().contains("none of the interfaces"),
            "{error}"
        );
    }
}
