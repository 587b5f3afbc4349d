use serde_json::json;

use super::*;

fn send_error(params: Value) -> String {
    decode_send_params(Some(&params)).unwrap_err().to_string()
}

#[test]
fn a_task_is_named_by_id_or_by_its_draft_resource_name() {
    for params in [
        json!({"id": "t1", "historyLength": 2}),
        json!({"name": "tasks/t1", "historyLength": 2}),
        json!({"id": "t1", "name": "tasks/other", "historyLength": 2}),
    ] {
        let query = decode_query_params(Some(&params)).unwrap();
        assert_eq!((query.id.as_str(), query.history_length), ("t1", Some(2)));
        assert_eq!(decode_id_params(Some(&params)).unwrap(), "t1", "{params}");
    }
    let missing = decode_id_params(Some(&json!({}))).unwrap_err().to_string();
    assert!(missing.contains("params.id"), "{missing}");
    for name in ["t1", "tasks/", "tasks/a/b", "contexts/t1"] {
        let error = decode_query_params(Some(&json!({ "name": name })))
            .unwrap_err()
            .to_string();
        assert!(error.contains("params.name"), "{name}: {error}");
    }
}

#[test]
fn a_role_is_taken_by_name_by_number_and_in_its_0_3_spelling() {
    for (role, expected) in [
        (json!("ROLE_USER"), Role::User),
        (json!(1), Role::User),
        (json!("user"), Role::User),
        (json!("ROLE_AGENT"), Role::Agent),
        (json!(2), Role::Agent),
        (json!("agent"), Role::Agent),
    ] {
        let params = json!({"message": {"messageId": "m", "role": role, "parts": [{"text": "x"}]}});
        let send = decode_send_params(Some(&params)).unwrap();
        assert_eq!(send.message.role, expected, "{role}");
    }
    for role in [
        json!("ROLE_UNSPECIFIED"),
        json!(0),
        json!(3),
        json!(-1),
        json!("USER"),
        json!(true),
    ] {
        let params = json!({"message": {"messageId": "m", "role": role, "parts": [{"text": "x"}]}});
        let error = send_error(params);
        assert!(error.starts_with("params.message.role"), "{role}: {error}");
    }
}

#[test]
fn each_bad_member_is_named_by_its_path() {
    assert_eq!(
        decode_send_params(None).unwrap_err().to_string(),
        "params: missing"
    );
    assert_eq!(send_error(json!({})), "params.message: missing");
    assert_eq!(
        send_error(json!({"message": {"role": "ROLE_USER", "parts": []}})),
        "params.message.messageId: missing"
    );
    assert_eq!(
        send_error(json!({"message": {"messageId": 1, "role": "ROLE_USER", "parts": []}})),
        "params.message.messageId: invalid type: integer `1`, expected a string"
    );
    assert_eq!(
        send_error(json!({"message": {"messageId": "m", "role": "USER", "parts": []}})),
        "params.message.role: invalid value: string \"USER\", expected ROLE_USER or ROLE_AGENT"
    );
    assert_eq!(
        send_error(json!({"message": {"messageId": "m", "role": "ROLE_USER",
            "parts": [{"text": "a"}, {"text": "b", "url": "https://x"}]}})),
        "params.message.parts[1]: expected exactly one of text, raw, url, data"
    );
    assert_eq!(
        send_error(json!({"message": {"messageId": "m", "role": "ROLE_USER",
            "parts": [{"data": [1]}]}})),
        "params.message.parts[0].data: expected an object, or an array of objects (A2UI \
         messages)"
    );
    assert_eq!(
        send_error(
            json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]},
            "configuration": {"historyLength": -1}})
        ),
        "params.configuration.historyLength: expected a non-negative integer"
    );
}

/// The text decoder takes what it can and gives what the `Value` decoder gives.
#[test]
fn the_text_decoder_agrees_with_the_value_decoder() {
    let accepted = [
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}],
            "metadata": {"a": [1]}, "contextId": "c", "extensions": ["urn:x"]},
            "configuration": {"historyLength": 2, "returnImmediately": true,
                "acceptedOutputModes": ["text/plain"]},
            "metadata": {"k": "v"}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER",
            "parts": [{"data": {"x": 1}, "mediaType": "application/a2ui+json"}]}}),
        json!({}),
        json!({"message": {"messageId": "m", "role": 1, "parts": [{"text": "a"}]}}),
        json!({"message": {"messageId": "m", "role": "agent", "parts": []}}),
        json!({"message": {"messageId": "m", "role": "ROLE_UNSPECIFIED", "parts": []}}),
        json!({"message": {"messageId": "", "role": "ROLE_USER", "parts": []}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{}]}}),
    ];
    for params in accepted {
        let from_text = decode_send_json(&params.to_string()).expect("read as text");
        let from_value = decode_send_params(Some(&params));
        assert_eq!(
            format!("{from_text:?}"),
            format!("{from_value:?}"),
            "{params}"
        );
    }
    for refused in [
        json!({"message": {"messageId": 1, "role": "ROLE_USER", "parts": []}}),
        json!({"message": {"messageId": "m", "role": "robot", "parts": []}}),
        json!([]),
        json!(null),
    ] {
        assert!(
            decode_send_json(&refused.to_string()).is_none(),
            "{refused}"
        );
    }
}

#[test]
fn a_data_parts_media_type_is_kept_where_a2ui_reads_it() {
    let params = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [
        {"data": {"action": {}}, "mediaType": "application/a2ui+json"}]}});
    let send = decode_send_params(Some(&params)).unwrap();
    assert_eq!(
        send.message.parts[0].metadata().unwrap()["mimeType"],
        "application/a2ui+json"
    );
    assert!(send.configuration.blocking);
}

#[test]
fn list_params_bound_the_page_and_refuse_unknown_states() {
    let query = decode_list_params(Some(&json!({"pageSize": 100000}))).unwrap();
    assert_eq!(query.page_size, TaskListQuery::MAX_PAGE_SIZE);
    assert_eq!(
        decode_list_params(None).unwrap().page_size,
        TaskListQuery::DEFAULT_PAGE_SIZE
    );
    let query = decode_list_params(Some(&json!({"status": "TASK_STATE_WORKING"}))).unwrap();
    assert_eq!(query.state, Some(TaskState::Working));
    assert_eq!(
        decode_list_params(Some(&json!({"status": "working"})))
            .unwrap_err()
            .to_string(),
        "params.status: unknown state \"working\""
    );
}

fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    crate::a2a::any_json(
        "(ROLE_USER|ROLE_AGENT|TASK_STATE_WORKING|m|[a-z]{0,4})",
        "(message|messageId|role|parts|text|data|url|raw|mediaType|id|pageSize|x)",
    )
}

proptest::proptest! {
    /// Hostile params never panic, and every refusal names a path under `params`.
    #[test]
    fn any_params_are_decoded_or_refused_with_a_path(params in any_json()) {
        for error in [
            decode_send_params(Some(&params)).err(),
            decode_query_params(Some(&params)).err(),
            decode_id_params(Some(&params)).err(),
            decode_list_params(Some(&params)).err(),
        ].into_iter().flatten() {
            proptest::prop_assert!(error.path().starts_with("params"), "{}", error);
        }
    }
}
