//! prompt (issue 5).
