//! One timed run of the `simulate` bench's week outside criterion, with a digest of the answer
//! (FNV-1a 64 and length of `to_json()`), so a performance change can be checked for byte
//! identity on the full-size trace:
//!
//! ```sh
//! cargo build --release -p nodecast-benches --example sim_week
//! target/release/examples/sim_week disruptable 10000 1     # variant, jobs, iterations
//! target/release/examples/sim_week do-not-disrupt 10000 3
//! ```

use nodecast::Outcome;
use std::time::Instant;

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant = args.get(1).map(String::as_str).unwrap_or("disruptable");
    let jobs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let req = match variant {
        "disruptable" => nodecast_benches::simulate_week_request_disruptable(jobs, 7),
        "do-not-disrupt" => nodecast_benches::simulate_week_request(jobs, 7),
        other => panic!("unknown variant {other:?}: disruptable or do-not-disrupt"),
    };
    for i in 0..iterations {
        let t = Instant::now();
        let answer = nodecast::simulate(&req);
        let ran = t.elapsed();
        let json = answer.to_json();
        let summary = match &answer.outcome {
            Outcome::Success(s) => format!(
                "{} launches, {} disruptions {:?}, {} timeline events, ${:.2}",
                s.summary.launches.total,
                s.summary.disruptions.total,
                s.summary.disruptions.by_reason,
                s.timeline.len(),
                s.summary.cost_usd
            ),
            Outcome::Failure { errors } => format!("failure: {errors:?}"),
        };
        println!(
            "{variant} {jobs} jobs, iteration {i}: {:.3} s simulate; digest (0x{:016x}, {}); {summary}",
            ran.as_secs_f64(),
            fnv1a(json.as_bytes()),
            json.len()
        );
    }
}
