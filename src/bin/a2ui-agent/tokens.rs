//! How many tokens a text is for a model, asked of the llama.cpp server that serves it
//! (`POST /tokenize {"content": text}` answers `{"tokens": [...]}`): a prompt's bytes say
//! little about what a model reads, and only the model's own tokenizer says it exactly.

use std::time::Duration;

use serde_json::{Value, json};

/// The largest answer read: a few bytes per token of a prompt of megabytes.
const MAX_ANSWER: usize = 64 << 20;

/// How long the tokenizer may take to answer.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The number of tokens `text` is for the model behind `url` (a llama.cpp server's
/// `/tokenize`).
///
/// # Errors
///
/// A message naming `url` when it cannot be reached, answers with an error status, takes
/// longer than a minute, answers more than 64 MiB, or answers without a `tokens` list.
pub fn count(url: &str, text: &str) -> Result<usize, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("--tokenizer-url: {e}"))?;
    let answer = runtime
        .block_on(async { tokio::time::timeout(TIMEOUT, fetch(url, text)).await })
        .map_err(|_| format!("--tokenizer-url {url}: no answer within 60 s"))?
        .map_err(|e| format!("--tokenizer-url {url}: {e}"))?;
    let value: Value = serde_json::from_slice(&answer)
        .map_err(|e| format!("--tokenizer-url {url}: the answer is not JSON: {e}"))?;
    value
        .get("tokens")
        .and_then(Value::as_array)
        .map(Vec::len)
        .ok_or_else(|| format!("--tokenizer-url {url}: the answer has no 'tokens' list"))
}

/// The body of the tokenizer's answer, at most [`MAX_ANSWER`] bytes.
async fn fetch(url: &str, text: &str) -> Result<Vec<u8>, String> {
    let response = reqwest::Client::new()
        .post(url)
        .json(&json!({"content": text}))
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| e.to_string())?;
    crate::bounded::read_at_most(response, MAX_ANSWER).await
}
