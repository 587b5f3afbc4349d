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
