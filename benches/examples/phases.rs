//! The phases of `nodecast plan` on manifest files, as the CLI runs them, timed one by one:
//! decoding the YAML/JSON text alone, `plan::model` (decode + validate + lower), the solve, the
//! render, and writing the answer's JSON (to a sink), in CPU milliseconds of the thread. For Karpenter's benchmark inputs:
//!
//!     cargo run --release -p nodecast-benches --example phases -- \
//!         ../shared/bench/karpenter-diverse/20000/nodepool.yaml pods.yaml \
//!         ../shared/bench/karpenter-diverse/catalog.yaml [iterations]
//!
//! (the pods file decompressed first). The last file is the inline catalog.
//!
//! `PHASES_REPEAT=R` runs the solve and the render R times per iteration and reports the mean,
//! which takes the 10 ms tick of the CPU clock down to 10/R ms.

use nodecast::{Answer, Input, Request};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (iterations, files) = match args.last().and_then(|a| a.parse::<usize>().ok()) {
        Some(n) => (n, &args[..args.len() - 1]),
        None => (1, &args[..]),
    };
    let [inputs @ .., catalog] = files else { panic!("usage: phases MANIFEST... CATALOG [iterations]") };
    let read = |f: &String| std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}"));
    let catalog_text = read(catalog);
    let catalog_doc = nodecast::internal::manifest::decode(&catalog_text, Some(catalog)).expect("catalog").remove(0);
    let req = Request {
        inputs: inputs.iter().map(|f| Input { name: Some(f.clone()), text: read(f) }).collect(),
        catalog: Some(catalog_doc.value.into_owned()),
        ..Default::default()
    };
    let bytes: usize = req.inputs.iter().map(|i| i.text.len()).sum();
    // CPU time of this thread, not wall time: on a shared machine the wall clock mostly
    // measures the neighbours (10 ms resolution, from /proc).
    let _ = Instant::now;
    let ms = |t: f64| cpu_ms() - t;
    let repeat: usize = std::env::var("PHASES_REPEAT").ok().and_then(|r| r.parse().ok()).unwrap_or(1).max(1);
    for i in 0..iterations {
        let t = cpu_ms();
        let docs: usize =
            req.inputs.iter().map(|i| nodecast::internal::manifest::decode(&i.text, i.name.as_deref()).expect("decode").len()).sum();
        let decode = ms(t);
        let t = cpu_ms();
        let (model, warnings) = nodecast::internal::load::model(&req.sources()).expect("request rejected");
        let model_ms = ms(t);
        let t = cpu_ms();
        for _ in 1..repeat {
            std::hint::black_box(nodecast::internal::scheduling::solve(&model));
        }
        let sol = nodecast::internal::scheduling::solve(&model);
        let solve = ms(t) / repeat as f64;
        let t = cpu_ms();
        for _ in 1..repeat {
            std::hint::black_box(nodecast::internal::provision::render(&model, &sol, warnings.clone()));
        }
        let plan = nodecast::internal::provision::render(&model, &sol, warnings);
        let render = ms(t) / repeat as f64;
        let claims = plan.node_claims.len();
        let answer = Answer::success("Plan", plan);
        let t = cpu_ms();
        let mut out = CountingSink(0);
        answer.write_json(&mut std::io::BufWriter::with_capacity(1 << 16, &mut out)).expect("sink");
        let write = ms(t);
        println!(
            "#{i}: {docs} documents, {:.1} MB in: decode alone {decode:.1} ms ({:.0} MB/s); model (decode + lower) {model_ms:.1} ms, lower ≈ {:.1} ms; solve {solve:.1} ms; render {render:.1} ms; lower+solve+render ≈ {:.1} ms; {claims} NodeClaims; JSON {:.1} MB written in {write:.1} ms ({:.0} MB/s)",
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / (decode / 1e3),
            model_ms - decode,
            model_ms - decode + solve + render,
            out.0 as f64 / 1e6,
            out.0 as f64 / 1e6 / (write / 1e3),
        );
    }
}

/// User + system CPU time of this thread in ms (`/proc/thread-self/stat`, clock ticks of 10 ms).
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // After the command name: state is field 0, utime 11, stime 12.
    (tick(11) + tick(12)) * 10.0
}

/// Counts the bytes written and drops them.
struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
