//! Run one benchmark case once, outside criterion: for `/usr/bin/time -v` (peak RSS) and
//! `perf record`.
//!
//!     cargo run --release -p nodecast-benches --example one_case -- diverse 1000 [iterations]
//!     cargo run --release -p nodecast-benches --example one_case -- gpu 100
//!     cargo run --release -p nodecast-benches --example one_case -- reserved100 1000 [iterations]
//!     cargo run --release -p nodecast-benches --example one_case -- consolidate 20000 [iterations] [budget]
//!
//! Prints the wall time (and the thread's CPU time, 10 ms ticks) of `load::model`, `scheduling::solve` and `provision::render` of each
//! iteration, and the peak of heap bytes live during the iteration (a counting global allocator
//! wraps the system one; the request itself is built before the first iteration and is included
//! in the "live before" figure). The `consolidate` case builds a cluster of N/20 nodes running N
//! pods (budget `10%` unless a fourth argument says otherwise) and times `load::model` and
//! `disruption::decide` instead. `packing N` puts N pending pods next to N/2 existing nodes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
            ALLOCATED.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let live = LIVE.fetch_add(grow, Relaxed) + grow;
                PEAK.fetch_max(live, Relaxed);
                ALLOCATED.fetch_add(grow, Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// CPU time of this thread (user + system), in ms at the kernel's 10 ms tick: on a loaded
/// machine the wall times above include waiting for a core, this does not.
fn cpu_ms() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // The fields after the command name (in parentheses, which may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15 of the line: 11 and 12 counting from the state
    // (field 3) after the name. Ticks are 10 ms (USER_HZ 100).
    (ticks(11) + ticks(12)) * 10
}

/// Start a memory measurement: the peak restarts from what is live now.
fn mem_start() -> (usize, usize) {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    (live, ALLOCATED.load(Relaxed))
}

/// "heap: N MB live before, peak +M MB, K MB allocated" since `mem_start`.
fn mem_report((live, allocated): (usize, usize)) -> String {
    let mb = |b: usize| b as f64 / 1e6;
    format!(
        "heap {:.1} MB live before, peak +{:.1} MB, {:.1} MB allocated",
        mb(live),
        mb(PEAK.load(Relaxed).saturating_sub(live)),
        mb(ALLOCATED.load(Relaxed) - allocated)
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("diverse");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    if case == "simulate" || case == "simulate-disruptable" {
        return simulate(n, iterations, case == "simulate-disruptable");
    }
    if case == "consolidate" {
        let budget = args.get(4).map(String::as_str).unwrap_or("10%");
        return consolidate(n, iterations, budget);
    }
    let req = match case {
        "diverse" => nodecast_benches::diverse_request(n),
        "diverse-one-app" => nodecast_benches::diverse_request_one_app(n),
        "gpu" => nodecast_benches::gpu_request(n),
        "gpu-unlimited" => nodecast_benches::gpu_request_unlimited(n),
        "gpu-deployments" => nodecast_benches::gpu_request_deployments(n),
        "packing" => nodecast_benches::packing_request(n / 2, n),
        "hostname-anti" => nodecast_benches::hostname_request(n, true),
        "hostname-spread" => nodecast_benches::hostname_request(n, false),
        "reserved-none" => nodecast_benches::reserved_request(n, 0, true),
        "reserved100" => nodecast_benches::reserved_request(n, 100, true),
        "ample100" => nodecast_benches::reserved_request_sized(n, 100, true, Some(nodecast_benches::AMPLE_RESERVATION)),
        "none-unreserved" => nodecast_benches::reserved_request(n, 0, false),
        "offered-unused100" => nodecast_benches::reserved_request(n, 100, false),
        other => panic!(
            "unknown case {other:?}: diverse, diverse-one-app, gpu, gpu-unlimited, gpu-deployments, packing, hostname-anti, hostname-spread, reserved-none, reserved100, ample100, none-unreserved, offered-unused100, consolidate or simulate"
        ),
    };
    if std::env::var_os("DUMP_PLAN").is_some() {
        let t = Instant::now();
        let a = nodecast::plan(&req);
        eprintln!("plan {:?}", t.elapsed());
        println!("{}", a.to_json());
        return;
    }
    for i in 0..iterations {
        let mem = mem_start();
        let (t, c0) = (Instant::now(), cpu_ms());
        let (model, _) = nodecast::internal::load::model(&req.sources()).expect("request rejected");
        let (lowered, c1) = (t.elapsed(), cpu_ms());
        let after_model = LIVE.load(Relaxed);
        let t = Instant::now();
        let sol = nodecast::internal::scheduling::solve(&model);
        let (solved, c2) = (t.elapsed(), cpu_ms());
        let after_solve = LIVE.load(Relaxed);
        let t = Instant::now();
        let plan = nodecast::internal::provision::render(&model, &sol, Vec::new());
        let (rendered, c3) = (t.elapsed(), cpu_ms());
        let after_render = LIVE.load(Relaxed);
        let total = lowered + solved + rendered;
        let grown = |b: usize| (b.saturating_sub(mem.0)) as f64 / 1e6;
        println!(
            "{case} {n} #{i}: {:.3} ms ({:.0} pods/s): model {:.3} ms, solve {:.3} ms, render {:.3} ms; {} NodeClaims, {} pods on existing nodes, {} unschedulable; {}; live +{:.1} MB after model, +{:.1} after solve, +{:.1} after render; CPU model {} ms, solve {} ms, render {} ms",
            total.as_secs_f64() * 1e3,
            n as f64 / total.as_secs_f64(),
            lowered.as_secs_f64() * 1e3,
            solved.as_secs_f64() * 1e3,
            rendered.as_secs_f64() * 1e3,
            plan.node_claims.len(),
            plan.existing_nodes.iter().map(|e| e.pods.len()).sum::<usize>(),
            plan.unschedulable.len(),
            mem_report(mem),
            grown(after_model),
            grown(after_solve),
            grown(after_render),
            c1 - c0,
            c2 - c1,
            c3 - c2
        );
        drop(plan);
        drop(sol);
        drop(model);
    }
}

fn consolidate(pods: usize, iterations: usize, budget: &str) {
    let nodes = (pods / 20).max(1);
    let req = nodecast_benches::consolidation_request(nodes, pods, budget);
    let now = nodecast::internal::disruption::parse_now(req.now.as_deref()).expect("bad now");
    for i in 0..iterations {
        let mem = mem_start();
        let (t, c0) = (Instant::now(), cpu_ms());
        let (model, _) = nodecast::internal::load::model(&req.sources()).expect("request rejected");
        let (lowered, c1) = (t.elapsed(), cpu_ms());
        let t = Instant::now();
        let d = nodecast::internal::disruption::decide(&model, now);
        let (decided, c2) = (t.elapsed(), cpu_ms());
        println!(
            "consolidate {nodes} nodes {pods} pods budget {budget} #{i}: model {:.3} ms, decide {:.3} ms (CPU model {} ms, decide {} ms); {} ({}), {} nodes disrupted{}; {}",
            lowered.as_secs_f64() * 1e3,
            decided.as_secs_f64() * 1e3,
            c1 - c0,
            c2 - c1,
            d.decision,
            d.method.map_or("-", |m| m.as_str()),
            d.disrupted_nodes.len(),
            d.replacement.as_ref().and_then(|r| r.instance_type.as_deref()).map(|t| format!(", replacement {t}")).unwrap_or_default(),
            mem_report(mem)
        );
    }
}

/// `simulate N` / `simulate-disruptable N`: the 7-day trace of N GPU jobs of the `simulate` bench; prints the wall time of
/// each `nodecast::simulate` and the JSON size.
fn simulate(jobs: usize, iterations: usize, disruptable: bool) {
    let req = if disruptable {
        nodecast_benches::simulate_week_request_disruptable(jobs, 7)
    } else {
        nodecast_benches::simulate_week_request(jobs, 7)
    };
    for i in 0..iterations {
        let (t, c0) = (Instant::now(), cpu_ms());
        let answer = nodecast::simulate(&req);
        let (ran, cpu) = (t.elapsed(), cpu_ms() - c0);
        let t = Instant::now();
        let json = answer.to_json();
        let serialised = t.elapsed();
        let summary = match &answer.outcome {
            nodecast::Outcome::Success(s) => format!(
                "{} launches, {} disruptions, {} timeline events, ${:.2} vs ${:.2} static",
                s.summary.launches.total,
                s.summary.disruptions.total,
                s.timeline.len(),
                s.summary.cost_usd,
                s.summary.static_cost_usd
            ),
            nodecast::Outcome::Failure { errors } => panic!("{errors:?}"),
        };
        println!(
            "simulate {jobs} jobs, iteration {i}: {ran:?} simulate (CPU {cpu} ms), {serialised:?} to_json ({} bytes); {summary}",
            json.len()
        );
    }
}
