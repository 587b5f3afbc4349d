//! Task lifecycle.
