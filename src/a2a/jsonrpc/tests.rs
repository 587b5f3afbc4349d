use super::*;

fn code_of(body: &str) -> (Id, i64) {
    let (id, error) = decode_request(body.as_bytes()).unwrap_err();
    (id, error.code.code())
}

#[test]
fn every_code_round_trips_through_its_integer() {
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::from_code(code.code()), Some(code));
    }
}

#[test]
fn the_id_keeps_its_json_type() {
    let number = decode_request(br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#).unwrap();
    assert_eq!(Value::from(&number.id), json!(1.5));
    let text = decode_request(br#"{"jsonrpc":"2.0","id":"1","method":"m"}"#).unwrap();
    assert_eq!(Value::from(&text.id), json!("1"));
}

#[test]
fn envelope_faults_get_their_codes() {
    assert_eq!(code_of("{"), (Id::Null, -32700));
    assert_eq!(code_of("[1]"), (Id::Null, -32600));
    assert_eq!(code_of("3"), (Id::Null, -32600));
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#),
        (Id::Null, -32600)
    );
    let id = Id::String("a".into());
    assert_eq!(
        code_of(r#"{"jsonrpc":"1.0","id":"a","method":"m"}"#),
        (id.clone(), -32600)
    );
    assert_eq!(code_of(r#"{"id":"a","method":"m"}"#), (id.clone(), -32600));
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":"a"}"#),
        (id.clone(), -32600)
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":"a","method":3}"#),
        (id, -32600)
    );
}

proptest::proptest! {
    /// Any bytes are decoded or refused, never a panic; a refusal is -32700 or -32600.
    #[test]
    fn any_body_is_decoded_or_refused(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
        if let Err((_, error)) = decode_request(&body) {
            proptest::prop_assert!(matches!(error.code, ErrorCode::ParseError | ErrorCode::InvalidRequest));
        }
    }
}

/// Bodies the fast envelope reader takes, and bodies it hands to the `Value` reader:
/// both give what `decode_request` gives.
#[test]
fn the_raw_reader_agrees_with_the_value_reader() {
    let bodies: [&[u8]; 12] = [
        br#"{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"a":[1,{"b":null}]}}"#,
        br#"{"jsonrpc":"2.0","id":"x","method":"m","params":null}"#,
        br#"{"jsonrpc":"2.0","method":"m"}"#,
        br#"{"jsonrpc":"2.0","id":1.5,"method":"mA","params":[]}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":{"x":1}}"#,
        br#"{"jsonrpc":"2.0","id":{},"method":"m"}"#,
        br#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":3}"#,
        br#"{"id":1,"method":"m"}"#,
        br#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
        b"{",
        br#"{"jsonrpc":"2.0","id":null,"method":"m","extra":{"deep":[[]]}}"#,
    ];
    for body in bodies {
        let (raw, expected) = raw_and_value_readings(body);
        assert_eq!(raw, expected, "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn an_array_is_a_batch_for_both_readers_not_a_request_by_position() {
    for body in [r#"["2.0", 0, "2.0"]"#, r#" ["2.0", 1, "m", {}]"#] {
        let (raw, expected) = raw_and_value_readings(body.as_bytes());
        assert_eq!(raw, expected, "{body}");
        assert!(raw.contains("batch"), "{raw}");
    }
}

fn raw_and_value_readings(body: &[u8]) -> (String, String) {
    let expected = decode_request(body).map(|request| {
        let params = request.params.filter(|params| !params.is_null());
        (request.id, request.method, params)
    });
    let raw = decode_request_raw(body).map(|request| {
        let params = request
            .params
            .map(|raw| serde_json::from_str::<Value>(raw.get()).unwrap());
        (request.id, request.method.into_owned(), params)
    });
    (format!("{raw:?}"), format!("{expected:?}"))
}

proptest::proptest! {
    /// Near-valid envelopes of any shape: the raw reader gives what the `Value` reader
    /// gives.
    #[test]
    fn the_raw_reader_agrees_on_any_envelope(
        body in crate::a2a::any_json("(2\\.0|1\\.0|m|SendMessage|[a-z]{0,3})", "(jsonrpc|id|method|params|x)")
    ) {
        let (raw, expected) = raw_and_value_readings(body.to_string().as_bytes());
        proptest::prop_assert_eq!(raw, expected);
    }
}

#[test]
fn a_success_serializes_its_id_with_its_json_type() {
    for (id, expected) in [
        (Id::Null, json!(null)),
        (Id::String("a".into()), json!("a")),
        (Id::Number(7.into()), json!(7)),
    ] {
        let text = serde_json::to_string(&Success::new(&id, 1)).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({"jsonrpc": "2.0", "id": expected, "result": 1})
        );
    }
}

#[test]
fn unknown_members_are_ignored() {
    let request =
        decode_request(br#"{"jsonrpc":"2.0","id":1,"method":"m","extra":true}"#).unwrap();
    assert_eq!(request.method, "m");
}
