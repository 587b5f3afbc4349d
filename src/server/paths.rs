//! Where a binding of the agent's own (AG-UI, MCP) may be served: a plain path apart from
//! the A2A routes, the cards and the web page, so no binding shadows another.

/// Paths the A2A routes, the cards and the web page use: a binding's path may not start
/// with one.
const TAKEN: [&str; 7] = [
    "/message:",
    "/tasks",
    "/extendedAgentCard",
    "/.well-known",
    "/web/",
    "/{",
    "/*",
];

/// `path` when it can serve a binding: absolute, plain (letters, digits, `-._~/`, no empty
/// segment, no trailing `/`), at most 256 bytes, apart from the A2A routes; else the path
/// and why not.
pub(crate) fn checked(path: String) -> Result<String, String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-._~/".contains(c);
    let why = if !path.starts_with('/') || path.len() < 2 || path.len() > 256 {
        "must start with `/`, name something and hold at most 256 bytes"
    } else if !path.chars().all(plain) || path.contains("//") || path.ends_with('/') {
        "may hold only letters, digits, `-._~` and single `/` between segments"
    } else if TAKEN.iter().any(|taken| path.starts_with(taken)) {
        "is taken by the A2A routes"
    } else {
        return Ok(path);
    };
    Err(format!("{path:?} {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_paths_apart_from_the_a2a_routes_are_taken() {
        for good in ["/ag-ui", "/mcp", "/agents/finder/ag-ui", "/v1.0/run_agent"] {
            assert_eq!(checked(good.to_owned()).unwrap(), good);
        }
        for bad in [
            "",
            "/",
            "ag-ui",
            "/ag-ui/",
            "//x",
            "/a b",
            "/{id}",
            "/tasks",
            "/tasks/x",
            "/message:send",
            "/.well-known/x",
            "/web/x",
            "/*rest",
        ] {
            assert!(checked(bad.to_owned()).is_err(), "{bad:?} passed");
        }
    }
}
