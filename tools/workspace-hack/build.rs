// No build step: the crate's build-dependencies only unify the proc-macro stack's features
// (see Cargo.toml); a build script is what makes cargo resolve them.
fn main() {}
