//! format (issue 5).
