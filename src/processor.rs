//! processor (issue 5).
