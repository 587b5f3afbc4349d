//! The agent card: how an agent describes itself at `/.well-known/agent-card.json`.
//!
//! Clients read the card to find the interface URL, the transport and the extensions the
//! agent supports; the builder fills the required members with sensible defaults.
//!
//! One model serves both protocol generations, in two shapes. A2A 1.0 clients get the 1.0
//! card ([`crate::a2a::v1_0::encode_card`]): only the members of `a2a.proto`'s `AgentCard`
//! (the 1.0 card schema admits no others), `supportedInterfaces` listing JSON-RPC 1.0,
//! HTTP+JSON 1.0 and JSON-RPC 0.3. 0.3 clients get this struct serialized as it is: the 1.0
//! members plus `url`, `preferredTransport` (`JSONRPC`), `protocolVersion` (`0.3.0`) and
//! `additionalInterfaces`; they ignore members they do not know. The server picks the
//! shape by path and `A2A-Version` (see the README). What the real clients do, read in
//! their sources (the reason for this design):
//!
//! - Python `a2a-sdk` 1.3 (`client/card_resolver.py`): when `supportedInterfaces` is
//!   present it is taken as is and `url`, `preferredTransport`, `protocolVersion`,
//!   `additionalInterfaces` are dropped; only without it are they turned into 0.3
//!   interfaces. `ClientFactory` then picks, per binding, the interface whose
//!   `protocolVersion` is 1.0, else one ≥ 0.3 (its 0.3 compat transports).
//! - `@a2a-js/sdk` 1.3: a card with a non-empty `supportedInterfaces` is a 1.0 card, even
//!   with `legacyCompat` on; each transport factory picks the interface of its binding with
//!   `protocolVersion` `"1.0"`, else the first.
//! - 0.3 SDKs know only the 0.3 members. `additionalInterfaces` names JSON-RPC alone: the
//!   0.3 HTTP+JSON binding (`/v1/...` paths) is not served.
//! - The A2A TCK fetches the card with no `A2A-Version` and validates it against the 1.0
//!   schema, so a request without the header gets the 1.0 card.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// The A2A protocol version of the card's 0.3 members (`protocolVersion`).
pub const PROTOCOL_VERSION: &str = "0.3.0";

/// The binding names of `AgentInterface.protocolBinding`.
pub mod binding {
    /// JSON-RPC 2.0 over HTTP.
    pub const JSONRPC: &str = "JSONRPC";
    /// The HTTP+JSON (REST) binding.
    pub const HTTP_JSON: &str = "HTTP+JSON";
    /// The gRPC binding (its interface URL is the server's `host:port`).
    pub const GRPC: &str = "GRPC";
}

/// Where and how an agent is reached (A2A 1.0 `AgentInterface`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// The URL.
    pub url: String,
    /// The binding: [`binding::JSONRPC`] or [`binding::HTTP_JSON`].
    pub protocol_binding: String,
    /// The protocol version, `Major.Minor`.
    pub protocol_version: String,
    /// The tenant a client names in every request to this interface (1.0 `tenant`: the
    /// `tenant` member, or the `/{tenant}/` path of HTTP+JSON); none for the default one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}

/// A 0.3 `additionalInterfaces` entry: URL and transport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LegacyInterface {
    /// The URL.
    pub url: String,
    /// The transport at `url`.
    pub transport: String,
}

/// An agent's self-description; serialized, the A2A 0.3 `AgentCard` (which also carries
/// the 1.0 `supportedInterfaces`); [`crate::a2a::v1_0::encode_card`] gives the 1.0 one.
///
/// Build one with [`AgentCard::builder`]; [`AgentCard::set_url`] keeps the interfaces in
/// step with the URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// The agent's name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The interfaces, newest protocol first (1.0): JSON-RPC 1.0, HTTP+JSON 1.0, JSON-RPC
    /// 0.3, all at `url`.
    pub supported_interfaces: Vec<AgentInterface>,
    /// The JSON-RPC interface URL. Empty: the server answers with the URL the client used
    /// to reach it (`http://<Host>/`).
    pub url: String,
    /// The agent's own version.
    pub version: String,
    /// The A2A protocol version: `"0.3.0"`.
    pub protocol_version: String,
    /// The transport at `url`: `"JSONRPC"`.
    pub preferred_transport: String,
    /// The 0.3 interfaces at `url` (0.3).
    pub additional_interfaces: Vec<LegacyInterface>,
    /// What the agent can do.
    pub capabilities: AgentCapabilities,
    /// MIME types the agent accepts.
    pub default_input_modes: Vec<String>,
    /// MIME types the agent produces.
    pub default_output_modes: Vec<String>,
    /// What the agent is good at.
    pub skills: Vec<AgentSkill>,
    /// A link to documentation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// A link to an icon.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    /// Whether `agent/getAuthenticatedExtendedCard` is served.
    pub supports_authenticated_extended_card: bool,
    /// The ways a client may authenticate, by name: OpenAPI-style security scheme objects
    /// such as `{"type": "http", "scheme": "bearer"}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub security_schemes: BTreeMap<String, Value>,
    /// Which schemes a request needs: any one entry of the list, each naming schemes (with
    /// their scopes) that must all be satisfied.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub security: Vec<BTreeMap<String, Vec<String>>>,
}

/// Optional protocol features (A2A 0.3 `AgentCapabilities`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `message/stream` and `tasks/resubscribe` are served.
    pub streaming: bool,
    /// Push notifications are served.
    pub push_notifications: bool,
    /// Tasks keep their state transition history.
    pub state_transition_history: bool,
    /// Protocol extensions the agent supports.
    pub extensions: Vec<AgentExtension>,
}

/// A protocol extension the agent supports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentExtension {
    /// The extension's URI.
    pub uri: String,
    /// What the agent does with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a client must use it.
    pub required: bool,
    /// Extension-specific parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl AgentExtension {
    /// An optional extension with no description or params.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            description: None,
            required: false,
            params: None,
        }
    }
}

/// A capability the agent offers (A2A 0.3 `AgentSkill`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentSkill {
    /// A unique id.
    pub id: String,
    /// A short name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

impl AgentSkill {
    /// A skill without tags or examples.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            tags: Vec::new(),
            examples: Vec::new(),
        }
    }
}

impl AgentCard {
    /// Starts a card for an agent called `name`.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
    ///
    /// let card = AgentCard::builder("Greeter")
    ///     .description("Says hello")
    ///     .url("http://localhost:8080/")
    ///     .skill(AgentSkill::new("greet", "Greet", "Greets the user"))
    ///     .build();
    /// let json = serde_json::to_value(&card).unwrap();
    /// assert_eq!(json["protocolVersion"], "0.3.0");
    /// assert_eq!(json["preferredTransport"], "JSONRPC");
    /// assert_eq!(json["supportedInterfaces"][0]["protocolVersion"], "1.0");
    /// assert_eq!(json["supportedInterfaces"][1]["protocolBinding"], "HTTP+JSON");
    /// assert_eq!(json["supportedInterfaces"][2]["url"], "http://localhost:8080/");
    /// ```
    pub fn builder(name: impl Into<String>) -> AgentCardBuilder {
        AgentCardBuilder {
            card: AgentCard {
                name: name.into(),
                description: String::new(),
                supported_interfaces: Vec::new(),
                url: String::new(),
                version: "0.1.0".into(),
                protocol_version: PROTOCOL_VERSION.into(),
                preferred_transport: binding::JSONRPC.into(),
                additional_interfaces: Vec::new(),
                capabilities: AgentCapabilities {
                    streaming: true,
                    push_notifications: false,
                    state_transition_history: false,
                    extensions: Vec::new(),
                },
                default_input_modes: vec!["text/plain".into()],
                default_output_modes: vec!["text/plain".into()],
                skills: Vec::new(),
                documentation_url: None,
                icon_url: None,
                supports_authenticated_extended_card: false,
                security_schemes: BTreeMap::new(),
                security: Vec::new(),
            },
        }
    }
}

impl AgentCard {
    /// Sets the interface URL, and every interface of both generations to it (none while
    /// the URL is empty).
    pub fn set_url(&mut self, url: String) {
        self.supported_interfaces.clear();
        self.additional_interfaces.clear();
        if !url.is_empty() {
            let interface = |binding: &str, version: &str| AgentInterface {
                url: url.clone(),
                protocol_binding: binding.into(),
                protocol_version: version.into(),
                tenant: None,
            };
            // HTTP+JSON paths are appended to the interface URL (`{url}/message:send`),
            // so it has no trailing slash.
            let rest = AgentInterface {
                url: url.trim_end_matches('/').to_owned(),
                ..interface(binding::HTTP_JSON, "1.0")
            };
            self.supported_interfaces = vec![
                interface(binding::JSONRPC, "1.0"),
                rest,
                interface(binding::JSONRPC, "0.3"),
            ];
            self.additional_interfaces = vec![LegacyInterface {
                url: url.clone(),
                transport: binding::JSONRPC.into(),
            }];
        }
        self.url = url;
    }
}

/// Builds an [`AgentCard`]; see [`AgentCard::builder`].
#[must_use]
#[derive(Debug, Clone)]
pub struct AgentCardBuilder {
    card: AgentCard,
}

impl AgentCardBuilder {
    /// What the agent does.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.card.description = description.into();
        self
    }

    /// The public URL of the JSON-RPC interface. Unset, the server answers with
    /// `http://<Host>/`, which is right when the router is mounted at `/` and reached
    /// directly.
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.card.url = url.into();
        self
    }

    /// The agent's own version (default `0.1.0`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.card.version = version.into();
        self
    }

    /// Adds a skill.
    pub fn skill(mut self, skill: AgentSkill) -> Self {
        self.card.skills.push(skill);
        self
    }

    /// Adds a supported extension.
    pub fn extension(mut self, extension: AgentExtension) -> Self {
        self.card.capabilities.extensions.push(extension);
        self
    }

    /// The MIME types the agent accepts (default `text/plain`).
    pub fn input_modes(mut self, modes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.card.default_input_modes = modes.into_iter().map(Into::into).collect();
        self
    }

    /// The MIME types the agent produces (default `text/plain`).
    pub fn output_modes(mut self, modes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.card.default_output_modes = modes.into_iter().map(Into::into).collect();
        self
    }

    /// A link to documentation.
    pub fn documentation_url(mut self, url: impl Into<String>) -> Self {
        self.card.documentation_url = Some(url.into());
        self
    }

    /// The card.
    pub fn build(mut self) -> AgentCard {
        let url = std::mem::take(&mut self.card.url);
        self.card.set_url(url);
        self.card
    }
}
