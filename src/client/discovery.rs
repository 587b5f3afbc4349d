//! Discovery: the agent card from `/.well-known/agent-card.json`, kept as HTTP caching says.
//!
//! A card is reused without asking while `Cache-Control: max-age` allows (capped at a day;
//! `no-store` and `no-cache` keep it only for revalidation); after that the client asks
//! again with `If-None-Match: <ETag>`, and a `304 Not Modified` keeps the card it has. The
//! card is decoded by the wire codec's [`decode_card`], which reads the 1.0 and the 0.3
//! shapes into the one [`AgentCard`] model.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, ETAG};

use super::error::ClientError;
use super::http::{Http, answer_budget, excerpt, json};
use crate::a2a::card::AgentCard;
use crate::a2a::v1_0::decode_card;

/// The longest a card is reused without asking, whatever `max-age` says.
const MAX_FRESH: Duration = Duration::from_secs(24 * 60 * 60);

/// The well-known path of the card, relative to the agent's base URL.
pub(super) const CARD_PATH: &str = ".well-known/agent-card.json";

/// The card, its validator and until when it may be used without asking.
#[derive(Debug, Clone)]
struct Cached {
    card: AgentCard,
    etag: Option<String>,
    fresh_until: Option<Instant>,
}

/// The card of one agent, fetched when needed.
#[derive(Debug)]
pub(super) struct CardCache {
    url: url::Url,
    cached: Mutex<Option<Cached>>,
}

impl CardCache {
    /// A cache for the card at `url`, empty.
    pub(super) fn new(url: url::Url) -> Self {
        Self {
            url,
            cached: Mutex::new(None),
        }
    }

    /// The card: the one kept while it is fresh, else the agent's (a 304 keeps the one kept).
    /// Retried as an idempotent call.
    pub(super) async fn card(&self, http: &Http) -> Result<AgentCard, ClientError> {
        let kept = self.kept();
        if let Some(kept) = &kept
            && kept.fresh_until.is_some_and(|until| Instant::now() < until)
        {
            return Ok(kept.card.clone());
        }
        let etag = kept.as_ref().and_then(|kept| kept.etag.clone());
        let fetched = http.retrying(|| self.fetch(http, etag.as_deref())).await?;
        let card = match (fetched, kept) {
            (Fetched::NotModified { fresh_until }, Some(mut kept)) => {
                kept.fresh_until = fresh_until;
                kept
            }
            (Fetched::NotModified { .. }, None) => {
                return Err(ClientError::BadCard(
                    "304 Not Modified to a request that had no card to keep".into(),
                ));
            }
            (Fetched::Card(cached), _) => *cached,
        };
        let answer = card.card.clone();
        if let Ok(mut slot) = self.cached.lock() {
            *slot = Some(card);
        }
        Ok(answer)
    }

    fn kept(&self) -> Option<Cached> {
        self.cached.lock().ok().and_then(|slot| slot.clone())
    }

    async fn fetch(&self, http: &Http, etag: Option<&str>) -> Result<Fetched, ClientError> {
        let mut extra = Vec::new();
        if let Some(etag) = etag {
            extra.push(("if-none-match", etag.to_owned()));
        }
        let request = http.prepare(http.client.get(self.url.clone()), &extra);
        let response = http.send(request).await?;
        let status = response.status();
        let fresh_until = freshness(response.headers().get(CACHE_CONTROL));
        if status == StatusCode::NOT_MODIFIED {
            return Ok(Fetched::NotModified { fresh_until });
        }
        let etag = response
            .headers()
            .get(ETAG)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let limit = http.limits.card_bytes;
        let body = http
            .body(response, limit)
            .await
            .map_err(|error| match error {
                ClientError::TooLarge(why) => ClientError::TooLarge(format!("the card: {why}")),
                other => other,
            })?;
        if !status.is_success() {
            return Err(ClientError::Http {
                status: status.as_u16(),
                body: excerpt(&body),
            });
        }
        let value = json(&body, &answer_budget(limit)).map_err(|error| match error {
            ClientError::BadAnswer(why) => ClientError::BadCard(why),
            other => other,
        })?;
        super::trust::check(&http.trusted, &value, "the agent card")?;
        let card = decode_card(&value).map_err(|error| ClientError::BadCard(error.to_string()))?;
        Ok(Fetched::Card(Box::new(Cached {
            card,
            etag,
            fresh_until,
        })))
    }
}

/// What one fetch of the card gave.
enum Fetched {
    Card(Box<Cached>),
    NotModified { fresh_until: Option<Instant> },
}

/// Until when a card answered with this `Cache-Control` may be used without asking: `None`
/// for none, `no-store`, `no-cache` or `max-age=0`.
fn freshness(header: Option<&reqwest::header::HeaderValue>) -> Option<Instant> {
    let text = header?.to_str().ok()?;
    let mut max_age = None;
    for directive in text.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-store" || lower == "no-cache" {
            return None;
        }
        if let Some(seconds) = lower.strip_prefix("max-age=") {
            max_age = seconds.trim_matches('"').parse::<u64>().ok();
        }
    }
    let age = Duration::from_secs(max_age?).min(MAX_FRESH);
    (!age.is_zero()).then(|| Instant::now() + age)
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn cache_control_gives_freshness_only_for_a_positive_max_age() {
        let fresh = |text: &'static str| freshness(Some(&HeaderValue::from_static(text)));
        assert!(fresh("public, max-age=300").is_some());
        assert!(fresh("max-age=0").is_none());
        assert!(fresh("no-cache, max-age=300").is_none());
        assert!(fresh("no-store").is_none());
        assert!(fresh("max-age=soon").is_none());
        assert!(freshness(None).is_none());
        let capped = fresh("max-age=99999999999").unwrap();
        assert!(capped <= Instant::now() + MAX_FRESH);
    }
}
