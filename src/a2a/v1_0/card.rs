//! The agent card as A2A 1.0 clients read it: the `AgentCard` of `a2a.proto`, nothing else.
//!
//! The 1.0 card schema admits no member it does not define, so the 0.3 members the
//! [`AgentCard`] model also carries (`url`, `preferredTransport`, `protocolVersion`,
//! `additionalInterfaces`, `supportsAuthenticatedExtendedCard`,
//! `capabilities.stateTransitionHistory`) are left out, and the two members whose shape
//! changed are rewritten: a security scheme becomes the `oneof` object of the proto
//! (`{"httpAuthSecurityScheme": {"scheme": "bearer"}}` for 0.3's `{"type": "http", ...}`,
//! `in` becoming `location`), and `security` becomes `securityRequirements`
//! (`[{"schemes": {"bearer": {"list": []}}}]`). The JSON-RPC 0.3 interface stays listed in
//! `supportedInterfaces`, which is how the 1.x SDKs' 0.3 transports find it.

use serde_json::{Map, Value, json};

use crate::a2a::card::AgentCard;

/// `card` in the A2A 1.0 shape (see the module docs).
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::card::AgentCard;
/// use a2ui_agent::a2a::v1_0::encode_card;
///
/// let card = AgentCard::builder("Greeter").url("http://localhost:8080/").build();
/// let json = encode_card(&card);
/// assert_eq!(json["supportedInterfaces"][0]["protocolVersion"], "1.0");
/// assert!(json.get("url").is_none());
/// assert!(json.get("protocolVersion").is_none());
/// # }
/// ```
pub fn encode_card(card: &AgentCard) -> Value {
    let mut capabilities = Map::new();
    capabilities.insert("streaming".into(), card.capabilities.streaming.into());
    capabilities.insert(
        "pushNotifications".into(),
        card.capabilities.push_notifications.into(),
    );
    capabilities.insert(
        "extendedAgentCard".into(),
        card.supports_authenticated_extended_card.into(),
    );
    capabilities.insert("extensions".into(), json!(card.capabilities.extensions));
    let mut out = Map::new();
    out.insert("name".into(), card.name.clone().into());
    out.insert("description".into(), card.description.clone().into());
    out.insert(
        "supportedInterfaces".into(),
        json!(card.supported_interfaces),
    );
    out.insert("version".into(), card.version.clone().into());
    out.insert("capabilities".into(), Value::Object(capabilities));
    out.insert("defaultInputModes".into(), json!(card.default_input_modes));
    out.insert(
        "defaultOutputModes".into(),
        json!(card.default_output_modes),
    );
    out.insert("skills".into(), json!(card.skills));
    if let Some(url) = &card.documentation_url {
        out.insert("documentationUrl".into(), url.clone().into());
    }
    if let Some(url) = &card.icon_url {
        out.insert("iconUrl".into(), url.clone().into());
    }
    if !card.security_schemes.is_empty() {
        let schemes = card
            .security_schemes
            .iter()
            .map(|(name, scheme)| (name.clone(), security_scheme(scheme)))
            .collect();
        out.insert("securitySchemes".into(), Value::Object(schemes));
    }
    if !card.security.is_empty() {
        let requirements = card
            .security
            .iter()
            .map(|requirement| {
                let schemes: Map<String, Value> = requirement
                    .iter()
                    .map(|(name, scopes)| (name.clone(), json!({"list": scopes})))
                    .collect();
                json!({"schemes": schemes})
            })
            .collect();
        out.insert("securityRequirements".into(), Value::Array(requirements));
    }
    Value::Object(out)
}

/// A 0.3 (OpenAPI-style, `type`-tagged) security scheme as the 1.0 `oneof` object; one
/// already in that shape, or of an unknown type, is kept as it is.
fn security_scheme(scheme: &Value) -> Value {
    let Value::Object(fields) = scheme else {
        return scheme.clone();
    };
    let wrapper = match fields.get("type").and_then(Value::as_str) {
        Some("http") => "httpAuthSecurityScheme",
        Some("apiKey") => "apiKeySecurityScheme",
        Some("oauth2") => "oauth2SecurityScheme",
        Some("openIdConnect") => "openIdConnectSecurityScheme",
        Some("mutualTLS") => "mtlsSecurityScheme",
        _ => return scheme.clone(),
    };
    let inner: Map<String, Value> = fields
        .iter()
        .filter(|(key, _)| key.as_str() != "type")
        .map(|(key, value)| {
            let key = if key == "in" {
                "location"
            } else {
                key.as_str()
            };
            (key.to_owned(), value.clone())
        })
        .collect();
    json!({ wrapper: inner })
}

#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use read::decode_card;

/// The card read back into the model (what the A2A client does with an agent's card).
#[cfg(any(feature = "client", feature = "unstable-internals"))]
mod read {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::{Map, Value, json};

    use crate::a2a::card::{
        AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill,
        LegacyInterface, PROTOCOL_VERSION, binding,
    };
    use crate::a2a::v1_0::wire_error::{WireError, parse};

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct WireCard {
        name: Option<String>,
        description: Option<String>,
        supported_interfaces: Option<Vec<WireInterface>>,
        url: Option<String>,
        preferred_transport: Option<String>,
        protocol_version: Option<String>,
        additional_interfaces: Option<Vec<WireLegacy>>,
        version: Option<String>,
        capabilities: Option<WireCapabilities>,
        default_input_modes: Option<Vec<String>>,
        default_output_modes: Option<Vec<String>>,
        skills: Option<Vec<WireSkill>>,
        documentation_url: Option<String>,
        icon_url: Option<String>,
        supports_authenticated_extended_card: Option<bool>,
        security_schemes: Option<Map<String, Value>>,
        security: Option<Vec<BTreeMap<String, Vec<String>>>>,
        security_requirements: Option<Vec<WireRequirement>>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct WireInterface {
        url: Option<String>,
        protocol_binding: Option<String>,
        protocol_version: Option<String>,
        tenant: Option<String>,
    }

    #[derive(Deserialize)]
    struct WireLegacy {
        url: Option<String>,
        transport: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct WireCapabilities {
        streaming: Option<bool>,
        push_notifications: Option<bool>,
        state_transition_history: Option<bool>,
        extended_agent_card: Option<bool>,
        extensions: Option<Vec<WireExtension>>,
    }

    #[derive(Deserialize)]
    struct WireExtension {
        uri: Option<String>,
        description: Option<String>,
        required: Option<bool>,
        params: Option<Value>,
    }

    #[derive(Deserialize)]
    struct WireSkill {
        id: Option<String>,
        name: Option<String>,
        description: Option<String>,
        tags: Option<Vec<String>>,
        examples: Option<Vec<String>>,
    }

    #[derive(Deserialize)]
    struct WireRequirement {
        schemes: Option<BTreeMap<String, WireScopes>>,
    }

    #[derive(Deserialize)]
    struct WireScopes {
        list: Option<Vec<String>>,
    }

    /// Decodes an agent card in either shape: the 1.0 card (`supportedInterfaces`), or a
    /// 0.3 card (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`),
    /// whose interfaces become `supportedInterfaces` entries of protocol version 0.3, as the
    /// 1.x SDKs read it. 1.0 security schemes and requirements take the model's 0.3 shape.
    ///
    /// # Errors
    ///
    /// A [`WireError`] naming the first missing or ill-typed member (`card.name: missing`).
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(feature = "unstable-internals")] {
    /// use a2ui_agent::a2a::card::AgentCard;
    /// use a2ui_agent::a2a::v1_0::{decode_card, encode_card};
    ///
    /// let card = AgentCard::builder("Greeter").url("http://localhost:8080/").build();
    /// let decoded = decode_card(&encode_card(&card)).unwrap();
    /// assert_eq!(decoded.supported_interfaces, card.supported_interfaces);
    /// # }
    /// ```
    pub fn decode_card(value: &Value) -> Result<AgentCard, WireError> {
        let card: WireCard = parse(Some(value), "card")?;
        let name = card
            .name
            .ok_or_else(|| WireError::new("card.name", "missing"))?;
        let legacy: Vec<LegacyInterface> = card
            .additional_interfaces
            .unwrap_or_default()
            .into_iter()
            .filter_map(|i| {
                Some(LegacyInterface {
                    url: i.url?,
                    transport: i.transport?,
                })
            })
            .collect();
        let url = card.url.unwrap_or_default();
        let preferred = card
            .preferred_transport
            .unwrap_or_else(|| binding::JSONRPC.into());
        let interfaces = match card.supported_interfaces {
            Some(interfaces) if !interfaces.is_empty() => interfaces
                .into_iter()
                .enumerate()
                .map(|(index, i)| interface(i, index))
                .collect::<Result<Vec<_>, _>>()?,
            _ => legacy_interfaces(&url, &preferred, &legacy),
        };
        let extended = card
            .capabilities
            .as_ref()
            .and_then(|capabilities| capabilities.extended_agent_card);
        Ok(AgentCard {
            name,
            description: card.description.unwrap_or_default(),
            url: if url.is_empty() {
                interfaces.first().map(|i| i.url.clone()).unwrap_or_default()
            } else {
                url
            },
            supported_interfaces: interfaces,
            version: card.version.unwrap_or_default(),
            protocol_version: card
                .protocol_version
                .unwrap_or_else(|| PROTOCOL_VERSION.into()),
            preferred_transport: preferred,
            additional_interfaces: legacy,
            capabilities: capabilities_of(card.capabilities),
            default_input_modes: card.default_input_modes.unwrap_or_default(),
            default_output_modes: card.default_output_modes.unwrap_or_default(),
            skills: card.skills.unwrap_or_default().into_iter().map(skill_of).collect(),
            documentation_url: card.documentation_url,
            icon_url: card.icon_url,
            supports_authenticated_extended_card: card
                .supports_authenticated_extended_card
                .or(extended)
                .unwrap_or(false),
            security_schemes: card
                .security_schemes
                .unwrap_or_default()
                .into_iter()
                .map(|(name, scheme)| (name, scheme_0_3(scheme)))
                .collect(),
            security: security_of(card.security, card.security_requirements),
        })
    }

    fn capabilities_of(wire: Option<WireCapabilities>) -> AgentCapabilities {
        let Some(wire) = wire else {
            return AgentCapabilities {
                streaming: false,
                push_notifications: false,
                state_transition_history: false,
                extensions: Vec::new(),
            };
        };
        AgentCapabilities {
            streaming: wire.streaming.unwrap_or(false),
            push_notifications: wire.push_notifications.unwrap_or(false),
            state_transition_history: wire.state_transition_history.unwrap_or(false),
            extensions: wire
                .extensions
                .unwrap_or_default()
                .into_iter()
                .filter_map(|e| {
                    Some(AgentExtension {
                        uri: e.uri?,
                        description: e.description,
                        required: e.required.unwrap_or(false),
                        params: e.params,
                    })
                })
                .collect(),
        }
    }

    fn skill_of(skill: WireSkill) -> AgentSkill {
        AgentSkill {
            id: skill.id.unwrap_or_default(),
            name: skill.name.unwrap_or_default(),
            description: skill.description.unwrap_or_default(),
            tags: skill.tags.unwrap_or_default(),
            examples: skill.examples.unwrap_or_default(),
        }
    }

    /// The 0.3 `security` as it is, else the 1.0 `securityRequirements` in its shape.
    fn security_of(
        security: Option<Vec<BTreeMap<String, Vec<String>>>>,
        requirements: Option<Vec<WireRequirement>>,
    ) -> Vec<BTreeMap<String, Vec<String>>> {
        match (security, requirements) {
            (Some(security), _) => security,
            (None, Some(requirements)) => requirements
                .into_iter()
                .map(|r| {
                    r.schemes
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(name, scopes)| (name, scopes.list.unwrap_or_default()))
                        .collect()
                })
                .collect(),
            (None, None) => Vec::new(),
        }
    }

    fn interface(wire: WireInterface, index: usize) -> Result<AgentInterface, WireError> {
        let path = format!("card.supportedInterfaces[{index}]");
        let missing = |member: &str| WireError::new(format!("{path}.{member}"), "missing");
        Ok(AgentInterface {
            url: wire.url.ok_or_else(|| missing("url"))?,
            protocol_binding: wire.protocol_binding.ok_or_else(|| missing("protocolBinding"))?,
            protocol_version: wire.protocol_version.ok_or_else(|| missing("protocolVersion"))?,
            tenant: wire.tenant.filter(|tenant| !tenant.is_empty()),
        })
    }

    /// A 0.3 card's interfaces as 1.0 entries: the main one, then the additional ones.
    fn legacy_interfaces(
        url: &str,
        preferred: &str,
        legacy: &[LegacyInterface],
    ) -> Vec<AgentInterface> {
        let main = (!url.is_empty()).then(|| LegacyInterface {
            url: url.to_owned(),
            transport: preferred.to_owned(),
        });
        let mut interfaces: Vec<AgentInterface> = Vec::new();
        for entry in main.iter().chain(legacy) {
            let interface = AgentInterface {
                url: entry.url.clone(),
                protocol_binding: entry.transport.clone(),
                protocol_version: "0.3".into(),
                tenant: None,
            };
            if !interfaces.contains(&interface) {
                interfaces.push(interface);
            }
        }
        interfaces
    }

    /// A 1.0 (`oneof`) security scheme in the model's 0.3 shape; any other is kept.
    fn scheme_0_3(scheme: Value) -> Value {
        let Value::Object(fields) = &scheme else {
            return scheme;
        };
        let kinds = [
            ("httpAuthSecurityScheme", "http"),
            ("apiKeySecurityScheme", "apiKey"),
            ("oauth2SecurityScheme", "oauth2"),
            ("openIdConnectSecurityScheme", "openIdConnect"),
            ("mtlsSecurityScheme", "mutualTLS"),
        ];
        let found = kinds.iter().find_map(|(wrapper, kind)| {
            match (fields.len(), fields.get(*wrapper)) {
                (1, Some(Value::Object(inner))) => Some((*kind, inner)),
                _ => None,
            }
        });
        let Some((kind, inner)) = found else {
            return scheme;
        };
        let mut out: Map<String, Value> = inner
            .iter()
            .map(|(key, value)| {
                let key = if key == "location" { "in" } else { key.as_str() };
                (key.to_owned(), value.clone())
            })
            .collect();
        out.insert("type".into(), json!(kind));
        Value::Object(out)
    }

    #[cfg(test)]
    mod tests {
        use serde_json::json;

        use super::decode_card;
        use crate::a2a::card::AgentCard;
        use crate::a2a::v1_0::encode_card;

        #[test]
        fn a_card_decodes_back_in_both_shapes_with_its_security() {
            let mut card = AgentCard::builder("Guarded")
                .url("http://h/")
                .skill(crate::a2a::card::AgentSkill::new("s", "S", "does s"))
                .build();
            card.security_schemes.insert(
                "apiKey".into(),
                json!({"type": "apiKey", "in": "header", "name": "X-API-Key"}),
            );
            card.security = vec![[("apiKey".to_owned(), vec![])].into_iter().collect()];
            let from_1_0 = decode_card(&encode_card(&card)).unwrap();
            assert_eq!(from_1_0.supported_interfaces, card.supported_interfaces);
            assert_eq!(from_1_0.security_schemes, card.security_schemes);
            assert_eq!(from_1_0.security, card.security);
            assert_eq!(from_1_0.skills, card.skills);
            let legacy = json!({"name": "Old", "url": "http://old/", "protocolVersion": "0.3.0",
                "preferredTransport": "JSONRPC"});
            let old = decode_card(&legacy).unwrap();
            assert_eq!(old.supported_interfaces.len(), 1);
            assert_eq!(old.supported_interfaces[0].protocol_version, "0.3");
            assert_eq!(
                decode_card(&json!({"url": 3})).unwrap_err().to_string(),
                "card.url: invalid type: integer `3`, expected a string"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_schemes_and_requirements_take_their_1_0_shape() {
        let mut card = AgentCard::builder("Guarded").url("http://h/").build();
        card.security_schemes.insert(
            "apiKey".into(),
            json!({"type": "apiKey", "in": "header", "name": "X-API-Key"}),
        );
        card.security = vec![[("apiKey".to_owned(), vec![])].into_iter().collect()];
        let json = encode_card(&card);
        assert_eq!(
            json["securitySchemes"]["apiKey"],
            json!({"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}})
        );
        assert_eq!(
            json["securityRequirements"],
            json!([{"schemes": {"apiKey": {"list": []}}}])
        );
        assert!(json.get("security").is_none());
    }
}
