//! Push notification configs as the stores keep them: beside their task, scoped to its
//! owner, gone with it.
//!
//! Each store keeps a task's configs in the order they were first set; setting one whose id
//! the task already has replaces it in place. The SQL stores keep each config as a small
//! JSON object of the store's own (`{"id","url","token","schemes","credentials",
//! "protocol"}`), not a wire format, so a protocol change does not touch stored rows.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use serde_json::{Map, Value, json};

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use super::StoreError;
use crate::a2a::PushConfig;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use crate::a2a::{PushAuthentication, PushProtocol};

/// What setting a push config did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushConfigPut {
    /// The config is kept (new, or replacing the one with its id).
    Kept,
    /// The owner has no such task (another owner's task counts as none).
    NoTask,
    /// The task holds as many configs as it may; the new one is not kept.
    Full,
}

/// Sets `config` in `configs`: in place of the one with its id, else at the end while
/// fewer than `max` are kept.
pub(crate) fn upsert(
    configs: &mut Vec<PushConfig>,
    config: PushConfig,
    max: usize,
) -> PushConfigPut {
    if let Some(kept) = configs.iter_mut().find(|kept| kept.id == config.id) {
        *kept = config;
        return PushConfigPut::Kept;
    }
    if configs.len() >= max {
        return PushConfigPut::Full;
    }
    configs.push(config);
    PushConfigPut::Kept
}

/// `config` as the SQL stores write it.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn encode(config: &PushConfig) -> String {
    let auth = config.authentication.as_ref();
    json!({
        "id": config.id,
        "url": config.url,
        "token": config.token,
        "schemes": auth.map(|auth| auth.schemes.clone()),
        "credentials": auth.and_then(|auth| auth.credentials.clone()),
        "protocol": config.protocol.as_str(),
    })
    .to_string()
}

/// A config the SQL stores wrote, of task `task_id` (named in the error).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn decode(engine: &str, task_id: &str, text: &str) -> Result<PushConfig, StoreError> {
    let corrupt = |detail: &str| StoreError::Corrupt {
        engine: engine.to_owned(),
        id: task_id.to_owned(),
        detail: format!("push config: {detail}"),
    };
    let value: Value = serde_json::from_str(text).map_err(|error| corrupt(&error.to_string()))?;
    let object: &Map<String, Value> = value.as_object().ok_or_else(|| corrupt("not an object"))?;
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let schemes = object
        .get("schemes")
        .and_then(Value::as_array)
        .map(|schemes| {
            schemes
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        });
    let credentials = text("credentials");
    let authentication = match (schemes, credentials) {
        (None, None) => None,
        (schemes, credentials) => Some(PushAuthentication {
            schemes: schemes.unwrap_or_default(),
            credentials,
        }),
    };
    Ok(PushConfig {
        id: text("id").ok_or_else(|| corrupt("no id"))?,
        url: text("url").ok_or_else(|| corrupt("no url"))?,
        token: text("token"),
        authentication,
        protocol: text("protocol")
            .as_deref()
            .and_then(PushProtocol::from_name)
            .ok_or_else(|| corrupt("no protocol"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upsert_replaces_by_id_and_stops_at_the_limit() {
        let mut configs = Vec::new();
        assert_eq!(
            upsert(&mut configs, PushConfig::new("a", "https://1"), 2),
            PushConfigPut::Kept
        );
        assert_eq!(
            upsert(&mut configs, PushConfig::new("b", "https://2"), 2),
            PushConfigPut::Kept
        );
        assert_eq!(
            upsert(&mut configs, PushConfig::new("c", "https://3"), 2),
            PushConfigPut::Full
        );
        assert_eq!(
            upsert(&mut configs, PushConfig::new("a", "https://4"), 2),
            PushConfigPut::Kept
        );
        let urls: Vec<&str> = configs.iter().map(|c| c.url.as_str()).collect();
        assert_eq!(urls, ["https://4", "https://2"]);
    }

    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    #[test]
    fn a_config_reads_back_as_written() {
        let mut config = PushConfig::new("c", "https://h");
        config.token = Some("t".into());
        config.protocol = PushProtocol::V0_3;
        config.authentication = Some(PushAuthentication {
            schemes: vec!["Bearer".into()],
            credentials: Some("s".into()),
        });
        assert_eq!(decode("x", "t", &encode(&config)).unwrap(), config);
        let bare = PushConfig::new("c", "https://h");
        assert_eq!(decode("x", "t", &encode(&bare)).unwrap(), bare);
        assert!(decode("x", "t", "[]").is_err());
    }
}
