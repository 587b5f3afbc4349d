//! Where the official A2UI files are: `../shared/reference/a2ui` beside the checkout.
//!
//! Tests that read them skip (and say so) when the folder is absent, so `cargo test` works
//! anywhere; with `A2UI_REQUIRE_REFERENCE=1` (as `scripts/test.sh` sets it) its absence fails
//! the test instead, so CI never passes by skipping.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/reference/a2ui`, or `None` after saying it is absent.
///
/// # Panics
///
/// When it is absent and `A2UI_REQUIRE_REFERENCE=1`.
pub fn a2ui() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/a2ui");
    if dir.join("conformance").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("A2UI_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "A2UI_REQUIRE_REFERENCE=1 but {} is absent",
        dir.display()
    );
    println!("skipped: {} is absent", dir.display());
    None
}

/// `../shared/reference/a2ui/conformance`, or `None` as for [`a2ui`].
pub fn conformance() -> Option<PathBuf> {
    a2ui().map(|dir| dir.join("conformance"))
}

/// The A2A 1.0 TCK: `$A2A_TCK_DIR`, else `../shared/reference/a2a-tck`; `None` (after saying
/// so) when absent.
///
/// # Panics
///
/// When it is absent and `A2UI_REQUIRE_REFERENCE=1`.
pub fn a2a_tck() -> Option<PathBuf> {
    let dir = match std::env::var_os("A2A_TCK_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/a2a-tck"),
    };
    if dir.join("specification/a2a.json").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var("A2UI_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "A2UI_REQUIRE_REFERENCE=1 but {} is absent",
        dir.display()
    );
    println!("skipped: {} is absent", dir.display());
    None
}
