//! How often `advise` finds a NodePool edit that recovers at least half of Karpenter's gap to the
//! optimum, on the random GPU generator, and advise's time:
//! `cargo run --release -p nodecast-benches --example advise_recovery -- [SEEDS] [PODS...]`.
//! Instances where Karpenter is already optimal (no gap) are counted apart.

use nodecast::optimize::gen;
use nodecast::{Outcome, Request};
use nodecast_benches::{percentile as pct, seeds_and_sizes};
use std::time::Instant;

fn main() {
    let (seeds, sizes) = seeds_and_sizes(100);
    println!("| pods (max) | instances | with a gap | best edit ≥ ½ gap | best edit without allowing spot ≥ ½ gap | any cheaper edit | best share median | without-spot share median | edits verified median | advise median | advise max |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &size in &sizes {
        let (mut times, mut shares, mut verified, mut od_shares) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut with_gap, mut half, mut any, mut od_half) = (0, 0, 0, 0);
        for seed in 1..=seeds {
            let req = Request {
                objects: gen::cluster(seed, size),
                catalog: Some(gen::catalog()),
                advise: Some(nodecast::advise::AdviseSettings { top: Some(50), ..Default::default() }),
                ..Default::default()
            };
            let t = Instant::now();
            let answer = nodecast::advise(&req);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            let Outcome::Success(a) = answer.outcome else { panic!("seed {seed}: failure") };
            verified.push(a.stats.candidates as f64 + a.stats.combinations as f64);
            if a.gap_per_hour <= 0.0 {
                continue;
            }
            with_gap += 1;
            any += usize::from(!a.advice.is_empty());
            let best = a.advice.first().map_or(0.0, |x| x.savings_per_hour / a.gap_per_hour * 100.0);
            half += usize::from(best >= 50.0);
            shares.push(best);
            // Allowing spot opens offerings the optimum (same constraints) may not use: the share
            // of the best edit that does not allow spot.
            let od = a
                .advice
                .iter()
                .find(|x| x.kind != "allow-spot" && !x.title.contains("allow spot"))
                .map_or(0.0, |x| x.savings_per_hour / a.gap_per_hour * 100.0);
            od_half += usize::from(od >= 50.0);
            od_shares.push(od);
        }
        for v in [&mut times, &mut shares, &mut verified, &mut od_shares] {
            v.sort_by(f64::total_cmp);
        }
        println!(
            "| {size} | {seeds} | {with_gap} | {half} ({:.0} %) | {od_half} ({:.0} %) | {any} | {:.1} % | {:.1} % | {:.0} | {:.1} ms | {:.1} ms |",
            half as f64 * 100.0 / with_gap.max(1) as f64,
            od_half as f64 * 100.0 / with_gap.max(1) as f64,
            pct(&shares, 0.5),
            pct(&od_shares, 0.5),
            pct(&verified, 0.5),
            pct(&times, 0.5),
            pct(&times, 1.0)
        );
    }
}
