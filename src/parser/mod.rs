//! The incremental parser of a model's output (text with `<a2ui-json>` blocks).
