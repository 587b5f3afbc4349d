//! The A2A server.
