//! The agent: user code.
