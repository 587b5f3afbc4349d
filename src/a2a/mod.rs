//! The A2A protocol model.
