//! What the crate knows about A2UI itself: versions, catalogs, capabilities, validation.
