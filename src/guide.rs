//! The guides: the documentation that is not about one item of the API.
//!
//! Each submodule is one file of `docs/` in the repository, shown here so that docs.rs
//! carries the guides beside the API they describe and `cargo test --doc` compiles every
//! Rust example they contain. The modules hold no items.

pub mod library {
    #![doc = include_str!("../docs/library.md")]
}

pub mod cli {
    #![doc = include_str!("../docs/cli.md")]
}

pub mod production {
    #![doc = include_str!("../docs/production.md")]
}

pub mod interop {
    #![doc = include_str!("../docs/interop.md")]
}

pub mod formats {
    #![doc = include_str!("../docs/formats.md")]
}

pub mod generation_quality {
    #![doc = include_str!("../docs/generation-quality.md")]
}

pub mod benchmarks {
    #![doc = include_str!("../docs/benchmarks.md")]
}

pub mod architecture {
    #![doc = include_str!("../docs/architecture.md")]
}
