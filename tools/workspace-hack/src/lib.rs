//! No code: this crate only pins the features of crates below the core (see its Cargo.toml).
