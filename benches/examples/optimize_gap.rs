//! The gap distribution of Karpenter's plan to the optimum on the random GPU generator, and the
//! solve times: `cargo run --release -p nodecast-benches --example optimize_gap -- [SEEDS] [PODS...]`.
//! With `RULES=1` in the environment the generator adds hostname rules (`gen::constrained_cluster`:
//! anti-affinity within and across workloads, hostname spreads); with `RULES=zones` zone rules
//! too (`gen::zoned_cluster`: zone spreads with maxSkew and minDomains, zone anti-affinity).

use nodecast::optimize::gen;
use nodecast::{Outcome, Request};
use nodecast_benches::{percentile as pct, seeds_and_sizes};
use std::time::Instant;

fn main() {
    let (seeds, sizes) = seeds_and_sizes(200);
    // RULES=zones: zone spreads and zone anti-affinity on top of the hostname rules.
    let generate = match std::env::var("RULES").as_deref() {
        Ok("zones") => gen::zoned_cluster,
        Ok(_) => gen::constrained_cluster,
        Err(_) => gen::cluster,
    };
    println!("| pods (max) | instances | gap median | gap p90 | gap max | optimal | worst gap to bound | solve median | solve max |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &size in &sizes {
        let (mut gaps, mut times, mut bound_gaps) = (Vec::new(), Vec::new(), Vec::new());
        let mut optimal = 0;
        for seed in 1..=seeds {
            let req = Request { objects: generate(seed, size), catalog: Some(gen::catalog()), ..Default::default() };
            let t = Instant::now();
            // The clock the time budget reads, as the CLI, Python and wasm lend it.
            let answer = nodecast::interrupt::with_clock(move || t.elapsed().as_secs_f64(), || nodecast::optimize(&req));
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            let Outcome::Success(o) = answer.outcome else { panic!("seed {seed}: failure") };
            let gap = if o.karpenter_price_per_hour > 0.0 { o.savings_per_hour / o.karpenter_price_per_hour * 100.0 } else { 0.0 };
            gaps.push(gap);
            bound_gaps.push(o.gap_percent);
            optimal += usize::from(o.certificate == "optimal");
        }
        for v in [&mut gaps, &mut times, &mut bound_gaps] {
            v.sort_by(f64::total_cmp);
        }
        println!(
            "| {size} | {seeds} | {:.1} % | {:.1} % | {:.1} % | {optimal} | {:.2} % | {:.1} ms | {:.1} ms |",
            pct(&gaps, 0.5),
            pct(&gaps, 0.9),
            pct(&gaps, 1.0),
            pct(&bound_gaps, 1.0),
            pct(&times, 0.5),
            pct(&times, 1.0)
        );
    }
}
