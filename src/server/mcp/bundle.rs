//! The renderer bundle: the `ui://` resource (MIME `text/html;profile=mcp-app`) an MCP Apps
//! host loads in its sandboxed iframe to show the agent's surfaces, as A2UI over MCP Apps
//! asks of every server whose tools return A2UI.
//!
//! Hosts that draw A2UI themselves read the `application/a2ui+json` resource of a tool
//! result; every other MCP Apps host knows nothing of A2UI, and follows the agent tool's
//! `_meta.ui.resourceUri` here. The bundle (built from `web/mcp-app/` into one HTML document,
//! committed and embedded, so serving it needs no npm) holds the official A2UI v0.9 web
//! renderer and ext-apps' app-side bridge: it draws the tool result the host hands it and
//! sends a component's action back through the host as `tools/call`.

use rmcp::ErrorData;
use rmcp::model::{ListResourcesResult, ReadResourceResult};
use serde_json::{Value, json};

use crate::a2ui::ProtocolVersion;

/// Where the bundle is.
pub(super) const URI: &str = "ui://a2ui-agent/renderer.html";

/// The MIME type of an MCP App's HTML.
const MIME: &str = "text/html;profile=mcp-app";

/// The A2UI version the bundle draws: what a client that declared no renderer of its own
/// gets, since the bundle is how such a client shows the surfaces.
pub(super) const VERSION: ProtocolVersion = ProtocolVersion::V0_9;

/// The bundle's HTML.
const HTML: &str = include_str!("../../../web/mcp-app/dist/renderer.html");

/// `resources/list`: the bundle.
pub(super) fn list() -> ListResourcesResult {
    let resource = json!({
        "uri": URI,
        "name": "a2ui_renderer",
        "title": "A2UI renderer",
        "description": "Draws the agent's A2UI surfaces in an MCP Apps host (the iframe path of \
                        A2UI over MCP Apps).",
        "mimeType": MIME,
    });
    let resources = serde_json::from_value(resource).map(|one| vec![one]);
    ListResourcesResult::with_all_items(resources.unwrap_or_default())
}

/// `resources/read` of `uri`: the bundle, or an error naming the URI it does not know.
pub(super) fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri != URI {
        let shown: String = uri.chars().take(128).collect();
        return Err(ErrorData::resource_not_found(
            format!("Unknown resource: {shown:?}"),
            None,
        ));
    }
    let contents = json!([{
        "uri": URI,
        "mimeType": MIME,
        "text": HTML,
        // Everything comes over the host's postMessage: no network, no outside assets.
        "_meta": {"ui": {"prefersBorder": false, "csp": {"connectDomains": [], "resourceDomains": []}}},
    }]);
    serde_json::from_value::<Vec<_>>(contents)
        .map(ReadResourceResult::new)
        .map_err(|error| ErrorData::internal_error(format!("the renderer bundle: {error}"), None))
}

/// The `_meta` of a tool whose results the bundle draws (MCP Apps: `ui.resourceUri`).
pub(super) fn tool_meta() -> Value {
    json!({"ui": {"resourceUri": URI}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_is_one_self_contained_html_document() {
        assert!(HTML.starts_with("<!doctype html>"), "{}", &HTML[..40]);
        assert_eq!(HTML.matches("<script").count(), 1);
        // Its one script is inline, and the page around it names nothing to load.
        let (page, rest) = HTML.split_once("<script type=\"module\">").unwrap();
        let (_, tail) = rest.rsplit_once("</script>").unwrap();
        for outside in ["src=", "href=", "@import"] {
            assert!(
                !page.contains(outside) && !tail.contains(outside),
                "{outside}"
            );
        }
        let listed = list();
        assert_eq!(listed.resources.len(), 1);
        assert_eq!(listed.resources[0].uri, URI);
    }

    #[test]
    fn reading_another_uri_names_it_in_the_error() {
        let error = read("ui://elsewhere/x.html").unwrap_err();
        assert!(error.message.contains("ui://elsewhere/x.html"), "{error:?}");
        assert_eq!(read(URI).unwrap().contents.len(), 1);
    }
}
