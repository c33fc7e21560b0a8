//! Decode rate of `nodecast::internal::manifest::decode` (YAML/JSON text into documents) on files, in CPU
//! time of the process, best of N runs: the figure issue 21's "decode ≥ 200 MB/s" is about.
//!
//!     cargo run --release -p nodecast --example decode_rate -- pods.yaml [runs]

use std::time::Duration;

/// CPU time of this process (user + system), from /proc (this example only; the core has no I/O).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let fields: Vec<&str> = stat.rsplit_once(") ").expect("stat format").1.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args.first().expect("usage: decode_rate FILE [runs]");
    let runs: usize = args.get(1).map_or(5, |r| r.parse().expect("runs"));
    let text = std::fs::read_to_string(file).expect("read");
    let mut best = Duration::MAX;
    let mut docs = 0;
    for _ in 0..runs {
        let t = cpu();
        let decoded = nodecast::internal::manifest::decode(&text, Some(file)).expect("valid input");
        docs = decoded.len();
        drop(decoded);
        best = best.min(cpu() - t);
    }
    let mb = text.len() as f64 / 1e6;
    println!(
        "{docs} documents, {mb:.1} MB: best {:.0} ms of CPU (decode + drop) = {:.0} MB/s",
        best.as_secs_f64() * 1e3,
        mb / best.as_secs_f64()
    );
    // The streamed form `load::model` uses for plain block YAML: each document dropped before
    // the next is built (so its memory is reused while still in cache).
    if nodecast::internal::manifest::streamable(&text) {
        let mut best = Duration::MAX;
        for _ in 0..runs {
            let t = cpu();
            let mut n = 0;
            assert!(nodecast::internal::manifest::decode_streamed(&text, Some(file), &mut |_| n += 1), "left the fast subset");
            assert_eq!(n, docs);
            best = best.min(cpu() - t);
        }
        println!(
            "streamed (decode_streamed, each document dropped before the next): best {:.0} ms of CPU = {:.0} MB/s",
            best.as_secs_f64() * 1e3,
            mb / best.as_secs_f64()
        );
    }
}
