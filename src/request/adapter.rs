//! The request adapter: from an A2A message to the A2UI an agent should answer with.
//!
//! This is WIRE.md §5 in one place. For each request it decides, before the agent runs,
//! which A2UI extension is active, which capabilities the renderer declared, and which of the
//! server's generators negotiates with them (the choosing is the generator's
//! [`negotiation`](crate::generator::negotiation)) — giving the [`RequestProcessor`] the agent
//! and the output pipeline use — or why none can, in which case the task fails with that
//! reason and the agent is never called.

use serde_json::{Map, Value};

use super::activation::{newest_extension, same_uri};
use crate::a2a::{Message, Part};
use crate::a2ui::{CapabilitiesError, ClientCapabilities, ProtocolVersion};
use crate::generator::Generator;
pub(crate) use crate::generator::negotiation::Refusal;
use crate::generator::negotiation::negotiate_among;
use crate::generator::processor::RequestProcessor;

/// The server's A2UI settings: its generators, in order of preference, and the
/// capabilities assumed when a client activates A2UI without declaring any.
#[derive(Clone, Default)]
pub(crate) struct A2uiAdapter {
    generators: Vec<Generator>,
    default_capabilities: Option<ClientCapabilities>,
    /// The card's other extensions, echoed when requested.
    other_extensions: Vec<String>,
}

/// How one request is answered: the adapter's decision, made before the task starts.
#[derive(Debug)]
pub(crate) enum A2uiOutcome {
    /// The client speaks no A2UI (or the server offers none): answer in plain text.
    Plain,
    /// Answer with A2UI through this processor.
    A2ui(RequestProcessor),
    /// The client asked for A2UI that cannot be served: the task fails with this reason and
    /// the agent is never called.
    Refused(Refusal),
}

/// What the adapter decided for one request.
#[derive(Debug)]
pub(crate) struct Adapted {
    /// How to answer.
    pub(crate) outcome: A2uiOutcome,
    /// The extension URIs to echo in the response header.
    pub(crate) activated: Vec<String>,
}

impl A2uiAdapter {
    pub(crate) fn new(
        generators: Vec<Generator>,
        default_capabilities: Option<ClientCapabilities>,
        other_extensions: Vec<String>,
    ) -> Self {
        Self {
            generators,
            default_capabilities,
            other_extensions,
        }
    }

    /// The extension URIs of the generators, once each, in order of preference.
    pub(crate) fn advertised(&self) -> Vec<&'static str> {
        let mut uris: Vec<&'static str> = Vec::new();
        for generator in &self.generators {
            let uri = generator.version().extension_uri();
            if !uris.contains(&uri) {
                uris.push(uri);
            }
        }
        uris
    }

    /// Decides the A2UI for `message`, whose client asked for the `requested` extensions.
    pub(crate) fn adapt(&self, requested: &[String], message: &Message) -> Adapted {
        let mut activated: Vec<String> = self
            .other_extensions
            .iter()
            .filter(|uri| requested.iter().any(|r| same_uri(r, uri)))
            .cloned()
            .collect();
        let fail = |activated: Vec<String>, refusal: Refusal| Adapted {
            outcome: A2uiOutcome::Refused(refusal),
            activated,
        };
        let plain = |activated: Vec<String>| Adapted {
            outcome: A2uiOutcome::Plain,
            activated,
        };
        if self.generators.is_empty() {
            return plain(activated);
        }
        let declared = match find_capabilities(message) {
            Ok(declared) => declared,
            Err(error) => return fail(activated, Refusal::MalformedCapabilities(error)),
        };
        let advertised = self.advertised();
        let requested_version =
            newest_extension(requested, &advertised).and_then(ProtocolVersion::from_extension_uri);
        let negotiated = negotiate_among(
            &self.generators,
            requested_version,
            declared.as_ref(),
            self.default_capabilities.as_ref(),
        );
        match negotiated {
            Ok(None) => plain(activated),
            Ok(Some(processor)) => {
                activated.push(processor.version().extension_uri().to_owned());
                Adapted {
                    outcome: A2uiOutcome::A2ui(processor),
                    activated,
                }
            }
            Err(refusal) => fail(activated, refusal),
        }
    }
}

/// The renderer's capabilities: in the message's metadata, else in an A2UI DataPart's
/// `data.metadata` (where some clients put them).
pub(crate) fn find_capabilities(
    message: &Message,
) -> Result<Option<ClientCapabilities>, CapabilitiesError> {
    if let Some(found) = message
        .metadata
        .as_ref()
        .map(ClientCapabilities::from_metadata)
        .transpose()?
        .flatten()
    {
        return Ok(Some(found));
    }
    for part in &message.parts {
        if let Part::Data { data, .. } = part
            && let Some(metadata) = data.get("metadata").and_then(Value::as_object)
            && let Some(found) = ClientCapabilities::from_metadata(metadata)?
        {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// A metadata map holding only `mimeType`.
pub(crate) fn mime_metadata(mime: &str) -> Map<String, Value> {
    let mut metadata = Map::new();
    metadata.insert("mimeType".into(), Value::String(mime.to_owned()));
    metadata
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message(metadata: Option<Value>, parts: Vec<Part>) -> Message {
        let mut message = Message::user("m", parts);
        message.metadata = metadata.and_then(|m| m.as_object().cloned());
        message
    }

    fn refusal(adapted: Adapted) -> String {
        match adapted.outcome {
            A2uiOutcome::Refused(refusal) => refusal.to_string(),
            other => panic!("not refused: {other:?}"),
        }
    }

    fn adapter() -> A2uiAdapter {
        A2uiAdapter::new(
            vec![Generator::v0_9(), Generator::v0_8()],
            None,
            vec!["urn:other".into()],
        )
    }

    #[test]
    fn a_client_that_asks_for_nothing_and_declares_nothing_gets_text() {
        let adapted = adapter().adapt(&[], &message(None, vec![Part::text("hi")]));
        assert!(matches!(adapted.outcome, A2uiOutcome::Plain));
        assert!(adapted.activated.is_empty());
    }

    #[test]
    fn other_advertised_extensions_are_echoed_beside_a2ui() {
        let requested = vec![
            "urn:other".to_owned(),
            "urn:unknown".to_owned(),
            ProtocolVersion::V0_8.extension_uri().to_owned(),
        ];
        let adapted = adapter().adapt(&requested, &message(None, vec![]));
        assert_eq!(
            adapted.activated,
            ["urn:other", ProtocolVersion::V0_8.extension_uri()]
        );
        let A2uiOutcome::A2ui(processor) = adapted.outcome else {
            panic!("not negotiated: {:?}", adapted.outcome);
        };
        assert_eq!(processor.version(), ProtocolVersion::V0_8);
    }

    #[test]
    fn malformed_capabilities_fail_the_request_with_where_they_are_wrong() {
        let metadata = json!({"a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": [1]}}});
        let adapted = adapter().adapt(&[], &message(Some(metadata), vec![]));
        let failure = refusal(adapted);
        assert!(failure.contains("malformed"), "{failure}");
        assert!(failure.contains("supportedCatalogIds"), "{failure}");
    }

    #[test]
    fn capabilities_for_a_version_the_agent_does_not_speak_fail_naming_both() {
        let metadata = json!({"a2uiClientCapabilities": {"v1.0": {"supportedCatalogIds": ["x"]}}});
        let adapted = adapter().adapt(&[], &message(Some(metadata), vec![]));
        let failure = refusal(adapted);
        assert!(
            failure.contains("v1.0") && failure.contains("v0.9, v0.8"),
            "{failure}"
        );
    }

    #[test]
    fn a_server_without_generators_never_negotiates() {
        let metadata = json!({"a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": ["x"]}}});
        let adapted = A2uiAdapter::default().adapt(
            &[ProtocolVersion::V0_9.extension_uri().to_owned()],
            &message(Some(metadata), vec![]),
        );
        assert!(matches!(adapted.outcome, A2uiOutcome::Plain));
    }
}
