//! Finding the URLs in an A2UI message, for the [`UrlPolicy`]: the strings a renderer
//! fetches or opens.
//!
//! Which strings those are comes from the negotiated catalogs ([`UrlProperties`]): a
//! property the catalog marks as a URL (`Image.url`, `openUrl`'s `url`, a custom
//! `thumbnailUrl` with `"format": "uri"`), written literally or as v0.8's
//! `{"literalString": ...}`; the links and images of a property the catalog says holds
//! Markdown; and, in a data-model update, any value that reads as a URL, since a component
//! may bind its URL to it (`{"path": "/item/photo"}`). A URL under a function call's `args`
//! (`openUrl`) is a place a person goes, so no `data:` URL stands in for it.
//!
//! A URL whose host is a name passes only once the name is judged (see `hosts`): the check
//! of a message with a name not judged yet says which names to look up, and the message is
//! checked again with their verdicts.
//!
//! The walk allocates nothing unless it finds a URL to check, and the JSON pointer of a
//! refused one is built only then.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::a2ui::{Catalog, UrlProperties, ValidationError};
use crate::request::{GivenText, Request};

use super::hosts::{HostCheck, HostVerdict, Resolved};
use super::url_policy::{UrlPolicy, UrlRefusal, Use};

/// How deep a message is walked; a deeper value is not a place a catalog puts a URL.
const MAX_DEPTH: usize = 48;

/// Checks the URLs of one reply's A2UI messages.
pub(crate) struct UrlCheck {
    policy: Arc<UrlPolicy>,
    catalogs: Vec<Catalog>,
    given: GivenText,
    /// The server's resolver and cache.
    hosts: Arc<HostCheck>,
    /// The verdicts on the names this reply's URLs used: each judged once per reply.
    verdicts: HashMap<String, HostVerdict>,
    /// The names the message being checked waits for.
    pending: Vec<String>,
}

/// Where the walk is.
#[derive(Clone, Copy, Default)]
struct Place {
    /// Inside a data-model update: a string that reads as a URL is one.
    data_model: bool,
    /// Inside a function call's arguments: a URL there is opened, not shown.
    opened: bool,
}

/// A refused URL: the pointer's segments (innermost first) and why.
struct Refused {
    segments: Vec<String>,
    why: UrlRefusal,
}

impl UrlCheck {
    /// The check of the reply to `request` under `policy` (`None`: the reply is plain text).
    pub(crate) fn new(
        policy: Arc<UrlPolicy>,
        hosts: Arc<HostCheck>,
        request: &Request,
    ) -> Option<Self> {
        let processor = request.a2ui()?;
        Some(UrlCheck {
            policy,
            catalogs: processor.catalogs().to_vec(),
            given: request.given(),
            hosts,
            verdicts: HashMap::new(),
            pending: Vec::new(),
        })
    }

    /// The server's resolver and cache, to look up what a check waits for.
    pub(crate) fn hosts(&self) -> &Arc<HostCheck> {
        &self.hosts
    }

    /// Takes the verdicts of a lookup for the checks that follow.
    pub(crate) fn resolved(&mut self, resolved: Resolved) {
        self.verdicts.extend(resolved.0);
    }

    /// Whether `message`'s URLs pass the policy: the host names still to look up before it
    /// can be told (none: it passes); the error names the first URL that does not.
    pub(crate) fn check(&mut self, message: &Value) -> Result<Vec<String>, ValidationError> {
        let Some(map) = message.as_object() else {
            return Ok(Vec::new());
        };
        let place = Place {
            data_model: map.keys().any(|kind| kind.contains("DataModel")),
            opened: false,
        };
        self.pending.clear();
        let Err(refused) = self.walk(message, place, 0) else {
            return Ok(std::mem::take(&mut self.pending));
        };
        let pointer: String = refused
            .segments
            .iter()
            .rev()
            .map(|segment| format!("/{}", segment.replace('~', "~0").replace('/', "~1")))
            .collect();
        let surface = surface_of(map);
        tracing::warn!(
            %pointer,
            reason = %refused.why,
            "a URL in the agent's A2UI was refused by the URL policy"
        );
        Err(ValidationError::new(
            pointer,
            format!("the URL here {}", refused.why),
            surface,
            None,
        ))
    }

    fn properties(&self) -> impl Iterator<Item = &UrlProperties> {
        self.catalogs.iter().map(Catalog::url_properties)
    }

    fn is_url(&self, key: &str) -> bool {
        self.properties().any(|found| found.is_url(key))
    }

    fn is_markdown(&self, key: &str) -> bool {
        self.properties().any(|found| found.is_markdown(key))
    }

    fn walk(&mut self, value: &Value, place: Place, depth: usize) -> Result<(), Refused> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        match value {
            Value::Object(map) => {
                let call = map.contains_key("call") || map.contains_key("functionCall");
                for (key, child) in map {
                    let place = Place {
                        opened: place.opened || (call && key == "args"),
                        ..place
                    };
                    let result = if self.is_url(key) {
                        self.url_value(child, place, depth)
                    } else if self.is_markdown(key) {
                        self.markdown_value(child)
                    } else {
                        self.walk(child, place, depth + 1)
                    };
                    result.map_err(|refused| refused.within(key))?;
                }
                Ok(())
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    self.walk(item, place, depth + 1)
                        .map_err(|refused| refused.within(&index.to_string()))?;
                }
                Ok(())
            }
            Value::String(text) if place.data_model && reads_as_url(text) => self.url(text, place),
            _ => Ok(()),
        }
    }

    /// A URL property's value: the URL itself, v0.8's `{"literalString": ...}`, or a
    /// binding (`{"path": ...}`, a function call) walked as any value.
    fn url_value(&mut self, value: &Value, place: Place, depth: usize) -> Result<(), Refused> {
        match value {
            Value::String(text) => self.url(text, place),
            Value::Object(map) => {
                for key in ["literalString", "literal", "value"] {
                    if let Some(Value::String(text)) = map.get(key) {
                        self.url(text, place)
                            .map_err(|refused| refused.within(key))?;
                    }
                }
                self.walk(value, place, depth + 1)
            }
            other => self.walk(other, place, depth + 1),
        }
    }

    /// A Markdown property's value: each link and image in its text.
    fn markdown_value(&mut self, value: &Value) -> Result<(), Refused> {
        match value {
            Value::String(text) => self.markdown(text),
            Value::Object(map) => {
                for key in ["literalString", "literal", "value"] {
                    if let Some(Value::String(text)) = map.get(key) {
                        self.markdown(text).map_err(|refused| refused.within(key))?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn markdown(&mut self, text: &str) -> Result<(), Refused> {
        for (link, image) in markdown_links(text) {
            let what = if image { Use::Media } else { Use::Open };
            self.judge(link, what)?;
        }
        Ok(())
    }

    fn url(&mut self, text: &str, place: Place) -> Result<(), Refused> {
        let what = if place.opened { Use::Open } else { Use::Media };
        self.judge(text, what)
    }

    fn judge(&mut self, text: &str, what: Use) -> Result<(), Refused> {
        let refused = |why| Refused {
            segments: Vec::new(),
            why,
        };
        let given = &self.given;
        let Some(host) = self
            .policy
            .screen(text, what, |url| given.contains(url))
            .map_err(refused)?
        else {
            return Ok(());
        };
        let verdict = match self.verdicts.get(&host) {
            Some(verdict) => verdict.clone(),
            None => match self.hosts.cached(&host) {
                Some(verdict) => {
                    self.verdicts.insert(host.clone(), verdict.clone());
                    verdict
                }
                None => {
                    if !self.pending.contains(&host) {
                        self.pending.push(host);
                    }
                    return Ok(());
                }
            },
        };
        match verdict {
            HostVerdict::Public => Ok(()),
            HostVerdict::Inside(_, class) => {
                Err(refused(UrlRefusal::ResolvesInside(host, class.describe())))
            }
            HostVerdict::Unresolved(why) => Err(refused(UrlRefusal::Unresolved(host, why))),
        }
    }
}

impl Refused {
    fn within(mut self, segment: &str) -> Self {
        self.segments.push(segment.to_owned());
        self
    }
}

/// The surface `message` is about.
fn surface_of(message: &serde_json::Map<String, Value>) -> Option<&str> {
    message
        .values()
        .find_map(|body| body.get("surfaceId")?.as_str())
}

/// Whether a data-model string reads as a URL a component could bind: a scheme-relative
/// `//host`, or a scheme a renderer acts on (tabs and newlines inside, and spaces and
/// control characters before it, ignored as a browser ignores them).
pub(crate) fn reads_as_url(text: &str) -> bool {
    const SCHEMES: [&str; 11] = [
        "http",
        "https",
        "javascript",
        "vbscript",
        "data",
        "file",
        "blob",
        "ftp",
        "ws",
        "wss",
        "filesystem",
    ];
    let text = text.trim_start_matches(|c: char| c <= ' ');
    if text.starts_with("//") || text.starts_with("\\\\") || text.starts_with("/\\") {
        return true;
    }
    let Some(colon) = text.find(':') else {
        return false;
    };
    if text[colon + 1..].starts_with("//") {
        return true;
    }
    let mut scheme = text[..colon]
        .bytes()
        .filter(|byte| !matches!(byte, b'\t' | b'\n' | b'\r'));
    SCHEMES.iter().any(|known| {
        let mut candidate = scheme.clone();
        known.bytes().all(|byte| {
            candidate
                .next()
                .is_some_and(|c| c.eq_ignore_ascii_case(&byte))
        }) && candidate.next().is_none()
    }) && scheme.next().is_some()
}

/// The links in Markdown `text`, each with whether it is an image (`![alt](url)`): inline
/// links' targets, `<autolinks>`, and bare `scheme://` addresses a renderer may link.
pub(crate) fn markdown_links(text: &str) -> Vec<(&str, bool)> {
    let mut links = Vec::new();
    if !text.contains(':') && !text.contains("](") {
        return links;
    }
    let stop = |c: char| c.is_whitespace() || matches!(c, ')' | '>' | '"' | '\'' | ']' | '<');
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let rest = rest.trim_start();
        let target = match rest.strip_prefix('<') {
            Some(inside) => &inside[..inside.find('>').unwrap_or(inside.len())],
            None => &rest[..rest.find(stop).unwrap_or(rest.len())],
        };
        let image = text[..at]
            .rfind('[')
            .is_some_and(|open| text[..open].ends_with('!'));
        links.push((target, image));
    }
    for (at, _) in text.match_indices('<') {
        let rest = &text[at + 1..];
        let end = rest.find(|c: char| c == '>' || c.is_whitespace());
        if let Some(end) = end.filter(|&end| rest[end..].starts_with('>'))
            && rest[..end].contains(':')
        {
            links.push((&rest[..end], false));
        }
    }
    for (at, _) in text.match_indices("://") {
        let start = text[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |before| before + 1);
        let rest = &text[at..];
        let end = at + rest.find(stop).unwrap_or(rest.len());
        // As a renderer links it: without the sentence's punctuation after it.
        let end = start
            + text[start..end]
                .trim_end_matches(['.', ',', ';', ':', '!', '?'])
                .len();
        if start < at {
            links.push((&text[start..end], false));
        }
    }
    links
}

#[cfg(test)]
#[path = "urls_tests.rs"]
mod tests;
