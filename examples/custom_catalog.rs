//! Your own catalog: a v0.9 catalog of your components next to the basic one, and renderers
//! allowed to bring their own catalogs inline in their capabilities. The agent prints the
//! prompt each renderer's capabilities negotiate, so you can see what the model is told.
//!
//! ```text
//! cargo run --example custom_catalog
//! ```

use a2ui_agent::a2ui::{Catalog, ClientCapabilities, ProtocolVersion};
use a2ui_agent::generator::Generator;
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let version = ProtocolVersion::V0_9;
    // Our catalog: one component, a rating with 1 to 5 stars.
    let ours = Catalog::from_value(
        version,
        json!({
            "catalogId": "https://example.com/catalogs/reviews/v1.json",
            "components": {
                "StarRating": {
                    "type": "object",
                    "description": "A rating shown as stars.",
                    "properties": {
                        "component": {"const": "StarRating"},
                        "stars": {"type": "integer", "minimum": 1, "maximum": 5}
                    },
                    "required": ["component", "stars"]
                }
            }
        }),
    )?;
    let generator = Generator::builder(version)
        .catalog(ours)
        .catalog(Catalog::basic(version))
        .accept_inline_catalogs(true)
        .build()?;

    // A renderer that knows our catalog.
    let knows_ours = ClientCapabilities::parse(&json!({"v0.9": {
        "supportedCatalogIds": ["https://example.com/catalogs/reviews/v1.json"]}}))?;
    let processor = generator.negotiate(Some(&knows_ours))?;
    println!("renderer 1 negotiated {:?}", ids(processor.catalogs()));
    assert!(processor.prompt().contains("StarRating"));

    // A renderer that brings its own catalog inline.
    let inline = ClientCapabilities::parse(&json!({"v0.9": {
        "supportedCatalogIds": [],
        "inlineCatalogs": [{"catalogId": "https://renderer.example/kiosk.json", "components": {
            "Ticker": {"type": "object",
                "properties": {"component": {"const": "Ticker"}, "text": {"type": "string"}},
                "required": ["component", "text"]}}}]}}))?;
    let processor = generator.negotiate(Some(&inline))?;
    println!("renderer 2 negotiated {:?}", ids(processor.catalogs()));
    assert!(processor.prompt().contains("Ticker"));

    // Messages are checked against what was negotiated.
    let ticker = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
        {"id": "root", "component": "Ticker", "text": "Doors open at 8"}]}});
    println!(
        "a Ticker validates: {}",
        processor.check_message(&ticker).is_ok()
    );
    Ok(())
}

fn ids(catalogs: &[Catalog]) -> Vec<&str> {
    catalogs.iter().map(Catalog::id).collect()
}
