//! What the agent is handed.
