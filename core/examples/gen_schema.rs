//! Writes the generated answer schema and TypeScript declarations (`make schema`):
//! `schema/answers.schema.json` (and its copy in the Python package) and
//! `bindings-wasm/js/answers.d.ts`, from the repository root
//! given as the first argument (default: the parent of this crate).

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let root = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."));
    let schema = nodecast::schema::answers_schema();
    std::fs::write(root.join("schema/answers.schema.json"), nodecast::schema::answers_schema_text())?;
    // The Python package's copy (shipped in the wheel; its pytest checks the classes against it).
    std::fs::write(root.join("bindings-py/python/nodecast/answers.schema.json"), nodecast::schema::answers_schema_text())?;
    std::fs::write(root.join("bindings-wasm/js/answers.d.ts"), nodecast::schema::typescript(&schema))?;
    println!("wrote schema/answers.schema.json and bindings-wasm/js/answers.d.ts");
    Ok(())
}
