//! generator (issue 5).
