//! Pending pods with the distribution of Karpenter's scheduling benchmark ("diverse pods",
//! `scheduling_benchmark_test.go` of kubernetes-sigs/karpenter v1.15.0), as the multi-document
//! YAML of `../shared/bench/karpenter-diverse/N/pods.yaml.gz`, for sizes that were not dumped
//! (100,000 pods would be a 60 MB file):
//!
//!     cargo run --release -p nodecast-benches --example karpenter_pods -- 100000 [seed] > pods.yaml
//!
//! One fifth each, in this order: generic pods, zone topology spread, hostname topology spread
//! (both `maxSkew: 1`, `DoNotSchedule`, selecting a random `my-label` value), zone self
//! pod-affinity on a random `my-affininity` value (Karpenter's spelling) and hostname self
//! anti-affinity on `app: nginx`; the remainder of N/5 is generic. Labels `my-label` /
//! `my-affininity` take one of `a`..`g`; cpu requests one of 100m, 250m, 500m, 1, 1500m;
//! memory one of 100Mi, 256Mi, 512Mi, 1Gi, 2Gi, 4Gi — each drawn uniformly, as the benchmark
//! draws them. Names and UIDs are random (Karpenter breaks ties between pods by UID). Karpenter
//! seeds its generator with 42 per size; this uses SplitMix64 (seed 42 unless given), so the
//! pods are the same distribution, not the same draws. Deterministic: the same N and seed give
//! the same bytes. `benches/cli_timing.sh` runs it for sizes it has no dump of.

use nodecast_benches::SplitMix64;
use std::io::Write;

const LABEL_VALUES: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];
const CPU: [&str; 5] = ["100m", "250m", "500m", "\"1\"", "1500m"];
const MEMORY: [&str; 6] = ["100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"];
const ZONE: &str = "topology.kubernetes.io/zone";
const HOSTNAME: &str = "kubernetes.io/hostname";

#[derive(Clone, Copy)]
enum Kind {
    Generic,
    Spread(&'static str),
    Affinity,
    AntiAffinity,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or_else(|| {
        eprintln!("usage: karpenter_pods N [seed] > pods.yaml");
        std::process::exit(2)
    });
    let seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(42);
    let mut rng = SplitMix64::new(seed);
    let fifth = n / 5;
    let kinds = [Kind::Generic, Kind::Spread(ZONE), Kind::Spread(HOSTNAME), Kind::Affinity, Kind::AntiAffinity];
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out.lock());
    let all = kinds.iter().flat_map(|&k| std::iter::repeat_n(k, fifth)).chain(std::iter::repeat_n(Kind::Generic, n - 5 * fifth));
    for (serial, kind) in all.enumerate() {
        write_pod(&mut out, kind, serial, &mut rng).expect("stdout");
    }
    out.flush().expect("stdout");
}

/// `len` random characters of `[a-z0-9]`.
fn token(rng: &mut SplitMix64, len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..len).map(|_| ALPHABET[rng.below(ALPHABET.len())] as char).collect()
}

/// A random version-4 UUID.
fn uuid(rng: &mut SplitMix64) -> String {
    let (a, b) = (rng.next_u64(), rng.next_u64());
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
    format!("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48, b & 0xffff_ffff_ffff)
}

fn write_pod(out: &mut impl Write, kind: Kind, serial: usize, rng: &mut SplitMix64) -> std::io::Result<()> {
    // Drawn in a fixed order so that the output depends on (N, seed) only.
    let (label_key, label_value) = match kind {
        Kind::Generic | Kind::Spread(_) => ("my-label", *rng.pick(&LABEL_VALUES)),
        Kind::Affinity => ("my-affininity", *rng.pick(&LABEL_VALUES)),
        Kind::AntiAffinity => ("app", "nginx"),
    };
    let selected = match kind {
        Kind::Spread(_) => *rng.pick(&LABEL_VALUES),
        _ => label_value,
    };
    let cpu = *rng.pick(&CPU);
    let memory = *rng.pick(&MEMORY);
    let name = format!("bench-{}-{serial}-{}", token(rng, 6), token(rng, 10));
    let container = format!("pause-{}-{serial}-{}", token(rng, 6), token(rng, 10));
    let uid = uuid(rng);
    // `---` between documents only: a trailing one would make an empty last document.
    if serial > 0 {
        writeln!(out, "---")?;
    }
    writeln!(out, "apiVersion: v1\nkind: Pod\nmetadata:\n  generation: 1\n  labels:")?;
    writeln!(out, "    {label_key}: {label_value}\n    testing/cluster: unspecified")?;
    writeln!(out, "  name: {name}\n  namespace: default\n  uid: {uid}\nspec:")?;
    match kind {
        Kind::Affinity | Kind::AntiAffinity => {
            let (field, key) = if matches!(kind, Kind::Affinity) { ("podAffinity", ZONE) } else { ("podAntiAffinity", HOSTNAME) };
            writeln!(out, "  affinity:\n    {field}:\n      requiredDuringSchedulingIgnoredDuringExecution:")?;
            writeln!(
                out,
                "      - labelSelector:\n          matchLabels:\n            {label_key}: {selected}\n        topologyKey: {key}"
            )?;
        }
        Kind::Generic | Kind::Spread(_) => {}
    }
    writeln!(out, "  containers:\n  - image: public.ecr.aws/eks-distro/kubernetes/pause:3.2\n    name: {container}")?;
    writeln!(out, "    resources:\n      requests:\n        cpu: {cpu}\n        memory: {memory}\n  resources: {{}}")?;
    if let Kind::Spread(key) = kind {
        writeln!(out, "  topologySpreadConstraints:\n  - labelSelector:\n      matchLabels:\n        my-label: {selected}")?;
        writeln!(out, "    maxSkew: 1\n    topologyKey: {key}\n    whenUnsatisfiable: DoNotSchedule")?;
    }
    writeln!(out, "status: {{}}")
}
