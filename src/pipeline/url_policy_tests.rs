use std::net::Ipv4Addr;

use proptest::prelude::*;

use super::*;

/// The verdict on `url` shown in a component's media, `given` being what the agent was
/// given.
fn verdict(policy: &UrlPolicy, url: &str, given: &str) -> Result<(), UrlRefusal> {
    policy.check(url, Use::Media, |found| given.contains(found))
}

fn refused(url: &str) -> String {
    verdict(&UrlPolicy::default(), url, url)
        .expect_err(url)
        .to_string()
}

#[test]
fn a_given_https_url_passes_and_a_made_up_one_does_not() {
    let policy = UrlPolicy::default();
    let tool = r#"{"photo": "https://images.example/cat.png"}"#;
    assert_eq!(
        verdict(&policy, "https://images.example/cat.png", tool),
        Ok(())
    );
    let made_up = verdict(&policy, "https://images.example/cat.png?d=secret", tool);
    let why = made_up.unwrap_err().to_string();
    assert!(
        why.contains("images.example") && !why.contains("secret"),
        "{why}"
    );
    let off = policy.clone().provenance(false);
    assert_eq!(verdict(&off, "https://made.up.example/x.png", ""), Ok(()));
    let allowed = UrlPolicy::default().allow_host("CDN.example.");
    assert_eq!(verdict(&allowed, "https://cdn.example./x?y=1", ""), Ok(()));
}

#[test]
fn every_way_of_writing_an_inside_address_is_refused() {
    for url in [
        "https://127.0.0.1/x",
        "https://2130706433/",
        "https://0x7f.1/",
        "https://0177.0.0.1/",
        "https://127.1/",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
        "https://169.254.169.254/latest/meta-data",
        "https://10.0.0.1/",
        "https://%31%32%37.0.0.1/",
        "https://localhost/",
        "https://LOCALHOST./",
        "https://%6c%6f%63%61%6c%68%6f%73%74/",
        "https://api.localhost/",
        "https://printer.local/",
        "https://metadata.google.internal/",
        "https://intranet/",
    ] {
        let why = refused(url);
        assert!(why.contains("only public hosts"), "{url}: {why}");
    }
}

#[test]
fn schemes_other_than_https_are_refused_however_written() {
    for url in [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " \u{1}javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "vbscript:msgbox",
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "blob:https://x.example/1",
    ] {
        assert!(refused(url).contains("only https"), "{url}");
    }
    assert!(refused("http://images.example/x.png").contains("uses http"));
    assert!(refused("//evil.example/x.png").contains("not an absolute"));
    assert!(refused("/img/x.png").contains("not an absolute"));
    assert!(refused("https://good.example@evil.example/x").contains("user name"));
}

#[test]
fn a_data_url_is_an_image_within_the_limit_and_only_as_media() {
    let policy = UrlPolicy::default().data_url_max(100);
    let small = "data:image/png;base64,iVBORw0KGgo=";
    assert_eq!(verdict(&policy, small, ""), Ok(()), "no provenance needed");
    let large = format!("data:image/png;base64,{}", "A".repeat(200));
    let why = verdict(&policy, &large, "").unwrap_err().to_string();
    assert!(why.contains("at most 100"), "{why}");
    let svg = "data:image/svg+xml,<svg onload=alert(1)>";
    assert_eq!(verdict(&policy, svg, ""), Err(UrlRefusal::DataNotImage));
    assert_eq!(
        verdict(&policy, "data:text/html,<script>", ""),
        Err(UrlRefusal::DataNotImage)
    );
    assert_eq!(
        policy.check(small, Use::Open, |_| true),
        Err(UrlRefusal::DataNotMedia)
    );
}

/// An IPv4 address as a browser may read it in a URL's host: dotted, one number, hex or
/// octal parts, or inside IPv6.
fn written(ip: Ipv4Addr, form: u8) -> String {
    let bits = u32::from(ip);
    let [a, b, c, d] = ip.octets();
    match form % 6 {
        0 => ip.to_string(),
        1 => bits.to_string(),
        2 => format!("0x{bits:x}"),
        3 => format!("0{a:o}.0{b:o}.0{c:o}.0{d:o}"),
        4 => format!("0x{a:x}.{b}.{}", u16::from_be_bytes([c, d])),
        _ => format!("[::ffff:{ip}]"),
    }
}

proptest! {
    /// Any address in a loopback, private or link-local range, in any textual form a
    /// browser reads, is refused, whether or not the conversation gave it.
    #[test]
    fn inside_ipv4_addresses_are_refused_in_any_form(
        range in 0u8..5,
        low in any::<u32>(),
        form in any::<u8>(),
        path in "[a-z0-9/?=&]{0,20}",
    ) {
        let (base, bits) = [
            (Ipv4Addr::new(127, 0, 0, 0), 8),
            (Ipv4Addr::new(10, 0, 0, 0), 8),
            (Ipv4Addr::new(172, 16, 0, 0), 12),
            (Ipv4Addr::new(192, 168, 0, 0), 16),
            (Ipv4Addr::new(169, 254, 0, 0), 16),
        ][usize::from(range)];
        let ip = Ipv4Addr::from(u32::from(base) | (low >> bits));
        let url = format!("https://{}/{path}", written(ip, form));
        let verdict = verdict(&UrlPolicy::default(), &url, &url);
        prop_assert!(matches!(verdict, Err(UrlRefusal::Address(..))), "{url}: {verdict:?}");
    }

    /// A javascript: URL is refused however its scheme is cased and whatever spaces,
    /// control characters, tabs or newlines surround or split it.
    #[test]
    fn a_javascript_scheme_is_refused_in_any_case_or_spacing(
        cases in proptest::collection::vec(any::<bool>(), 10),
        before in "[ \t\n\r\u{0}-\u{1f}]{0,4}",
        split in 0usize..10,
        inside in "[\t\n\r]{0,2}",
        body in ".{0,30}",
    ) {
        let scheme: String = "javascript"
            .chars()
            .zip(&cases)
            .map(|(c, upper)| if *upper { c.to_ascii_uppercase() } else { c })
            .collect();
        let (head, tail) = scheme.split_at(split);
        let url = format!("{before}{head}{inside}{tail}:{body}");
        let verdict = verdict(&UrlPolicy::default().provenance(false), &url, &url);
        prop_assert!(verdict.is_err(), "{url:?} passed");
        prop_assert!(
            !matches!(verdict, Err(UrlRefusal::NotGiven(_))),
            "{url:?}: refused for the wrong reason"
        );
    }
}
