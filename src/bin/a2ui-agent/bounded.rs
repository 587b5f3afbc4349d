//! A response body read up to a limit: the command line fetches from servers it is pointed at
//! (a JWKS, a tokenizer), and none of them may make it hold more than it expects.

/// The body of `response`, or an error once it passes `max` bytes or cannot be read.
pub async fn read_at_most(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > max {
            return Err(format!("the answer is over {} KiB", max >> 10));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
