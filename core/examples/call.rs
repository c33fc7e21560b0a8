//! Answer one JSON request with the facade, without the CLI (docs/reservations.md was produced
//! with it while the CLI's solver dependency rebuilt):
//!
//!     cargo run --release -p nodecast --example call -- plan < request.json

use std::io::Read;

fn main() {
    let function = std::env::args().nth(1).expect("usage: call FUNCTION < request.json");
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("read stdin");
    println!("{}", nodecast::call(&function, &text));
}
