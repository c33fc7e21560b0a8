//! Time `nodecast::call(function, request_json)` in Rust, on a request JSON file written by
//! `bench/bench_plan.py --write-request FILE`: the Rust core's own time for exactly the request
//! the Python benchmark sends.
//!
//!     cargo run --release --manifest-path bindings-py/Cargo.toml --example time_call -- FILE [plan] [iterations]
//!
//! Prints one line per iteration and a final `best ... median ...` line (seconds).

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: time_call REQUEST.json [function] [iterations]");
        std::process::exit(2);
    };
    let function = args.get(2).map(String::as_str).unwrap_or("plan");
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let request = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let mut times = Vec::with_capacity(iterations);
    let mut bytes = 0;
    for i in 0..iterations {
        let t = Instant::now();
        let answer = nodecast::call(function, &request);
        let s = t.elapsed().as_secs_f64();
        bytes = answer.len();
        println!("#{i}: {s:.4} s ({} bytes in, {bytes} bytes out)", request.len());
        times.push(s);
    }
    times.sort_by(f64::total_cmp);
    println!("best {:.4} median {:.4} (answer {bytes} bytes)", times[0], times[times.len() / 2]);
}
