use crate::address::Forbidden;
use serde_json::json;

use super::*;

#[test]
fn markdown_links_images_autolinks_and_bare_addresses_are_found() {
    let text = "See [docs](https://a.example/d) and ![x](https://b.example/p.png?d=1), \
                <https://c.example/>, or https://d.example/page. Not this: plain.";
    let links = markdown_links(text);
    assert_eq!(
        links,
        vec![
            ("https://a.example/d", false),
            ("https://b.example/p.png?d=1", true),
            ("https://c.example/", false),
            ("https://a.example/d", false),
            ("https://b.example/p.png?d=1", false),
            ("https://c.example/", false),
            ("https://d.example/page", false),
        ]
    );
    assert_eq!(
        markdown_links("[x](//evil.example/y)"),
        vec![("//evil.example/y", false)]
    );
    assert!(markdown_links("Just **bold** text").is_empty());
}

#[test]
fn data_model_strings_that_read_as_urls_are_found() {
    for text in [
        "https://x.example/",
        "  JavaScript:alert(1)",
        "java\tscript:alert(1)",
        "//evil.example/x",
        "data:image/png;base64,AAAA",
        "custom+scheme://x",
    ] {
        assert!(reads_as_url(text), "{text:?}");
    }
    for text in ["Note: bring a coat", "12:30", "plain", "", "javas cript:x"] {
        assert!(!reads_as_url(text), "{text:?}");
    }
}

fn check_of(given: &str) -> UrlCheck {
    let processor = crate::generator::Generator::v0_9().negotiate(None).unwrap();
    let message = crate::a2a::Message::user("m", vec![crate::a2a::Part::text(given)]);
    let request = Request::new(message, "t", "c").with_a2ui(processor);
    UrlCheck::new(Arc::default(), Arc::default(), &request).unwrap()
}

#[test]
fn an_image_url_not_given_is_refused_with_its_pointer() {
    let mut check = check_of("show https://ok.example/cat.png");
    let message = |url: &str| {
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Image", "url": url}]}})
    };
    let url = message("https://ok.example/cat.png");
    assert_eq!(check.check(&url), Ok(vec!["ok.example".to_owned()]));
    check.resolved(Resolved(vec![("ok.example".into(), HostVerdict::Public)]));
    assert_eq!(check.check(&url), Ok(vec![]), "judged: it passes");
    check.resolved(Resolved(vec![(
        "ok.example".into(),
        HostVerdict::Inside("127.0.0.1".parse().unwrap(), Forbidden::Loopback),
    )]));
    let error = check.check(&url).unwrap_err();
    assert!(error.message.contains("resolves to a loopback"), "{error}");
    assert!(!error.message.contains("127.0.0.1"), "{error}");
    let error = check
        .check(&message("https://ok.example/cat.png?d=secret"))
        .unwrap_err();
    assert_eq!(error.pointer, "/updateComponents/components/0/url");
    assert_eq!(error.surface_id.as_deref(), Some("s"));
    assert!(!error.message.contains("secret"), "{error}");
}

#[test]
fn open_url_arguments_markdown_and_bound_data_are_checked() {
    let mut check = check_of("nothing given");
    let open = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
        {"id": "b", "component": "Button", "child": "t", "action": {"functionCall":
            {"call": "openUrl", "args": {"url": "data:image/png;base64,AAAA"}}}}]}});
    let error = check.check(&open).unwrap_err();
    assert!(error.message.contains("only an image"), "{error}");
    let text = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
        {"id": "t", "component": "Text", "text": "[click](javascript:alert(1))"}]}});
    assert!(
        check
            .check(&text)
            .unwrap_err()
            .message
            .contains("javascript")
    );
    let data = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/",
        "value": {"items": [{"photo": "https://evil.example/p.png?d=x"}]}}});
    let error = check.check(&data).unwrap_err();
    assert_eq!(error.pointer, "/updateDataModel/value/items/0/photo");
    let plain = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
        {"id": "t", "component": "Text", "text": "Dinner at 12:30, **bold**"}]}});
    assert_eq!(check.check(&plain), Ok(vec![]));
}
