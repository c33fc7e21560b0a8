//! Input generators for the nodecast benchmarks.
//!
//! Everything here is deterministic: a fixed-seed SplitMix64 generator stands in for `rand`,
//! so every run (and every machine) benchmarks exactly the same requests.

pub mod hpa;

use nodecast::{Outcome, Request};
use serde_json::{json, Value};

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for picking test inputs.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant for benchmark inputs).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------------------------
// The diverse benchmark (Karpenter's `scheduling_benchmark_test.go` shape)
// ---------------------------------------------------------------------------------------------

/// vCPU sizes of the synthetic catalog (1..96 cores).
const CORES: [u32; 12] = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 72, 96];
/// GiB of memory per vCPU with the matching on-demand $/vCPU-hour, modelled on the AWS
/// c (compute), m (general) and r (memory) families: c5.large 0.085, m5.large 0.096,
/// r5.large 0.126 for 2 vCPU.
const RATIOS: [(u32, f64); 3] = [(2, 0.0425), (4, 0.048), (8, 0.063)];

/// Karpenter's default kube-reserved CPU (millicores) for a node with `cores` vCPUs:
/// 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% of the rest.
fn reserved_cpu_milli(cores: u32) -> u32 {
    let c = cores as f64;
    let m = 60.0 + 10.0 * (c - 1.0).clamp(0.0, 1.0) + 5.0 * (c - 2.0).clamp(0.0, 2.0) + 2.5 * (c - 4.0).max(0.0);
    m.ceil() as u32
}

/// Allocatable memory (MiB): capacity less the 7.5% VM overhead, kube-reserved
/// (11 MiB per pod + 255 MiB at 110 pods) and the 100 MiB hard eviction threshold.
fn allocatable_memory_mib(gib: u32) -> u32 {
    let mib = gib * 1024;
    let vm = mib - (mib as f64 * 0.075).ceil() as u32;
    vm.saturating_sub(11 * 110 + 255 + 100).max(256)
}

/// One synthetic instance type of the inline catalog (FORMAT.md §2.2).
fn synth_type(i: usize) -> Value {
    let shape = i % (CORES.len() * RATIOS.len());
    let variant = i / (CORES.len() * RATIOS.len());
    let cores = CORES[shape / RATIOS.len()];
    let (gib_per_core, price_per_core) = RATIOS[shape % RATIOS.len()];
    let gib = cores * gib_per_core;
    // Each variant is a "family generation" with a slightly different price, so no two types
    // cost the same and the cheapest-first ordering is total.
    let price = cores as f64 * price_per_core * (1.0 + 0.021 * variant as f64 + 0.0003 * shape as f64);
    let price = (price * 1e5).round() / 1e5;
    json!({
        "name": format!("synth-{i}"),
        "capacity": {"cpu": cores.to_string(), "memory": format!("{gib}Gi"), "pods": "110"},
        "allocatable": {
            "cpu": format!("{}m", cores * 1000 - reserved_cpu_milli(cores)),
            "memory": format!("{}Mi", allocatable_memory_mib(gib)),
            "pods": "110",
        },
        "labels": {"example.com/family": format!("f{variant}"), "example.com/cores": cores.to_string()},
        "onDemandPrice": price,
    })
}

/// The inline catalog of `n` synthetic types (default zones and capacity types).
pub fn synthetic_catalog(n: usize) -> Value {
    json!({"instanceTypes": (0..n).map(synth_type).collect::<Vec<_>>()})
}

/// Which constraint a pod of the diverse benchmark carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Generic,
    ZoneSpread,
    HostnameSpread,
    ZoneAffinity,
    HostnameAntiAffinity,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::Generic, Kind::ZoneSpread, Kind::HostnameSpread, Kind::ZoneAffinity, Kind::HostnameAntiAffinity];

    fn tag(self) -> &'static str {
        match self {
            Kind::Generic => "generic",
            Kind::ZoneSpread => "zone-spread",
            Kind::HostnameSpread => "host-spread",
            Kind::ZoneAffinity => "zone-affinity",
            Kind::HostnameAntiAffinity => "host-anti",
        }
    }
}

const ZONE: &str = "topology.kubernetes.io/zone";
const HOSTNAME: &str = "kubernetes.io/hostname";

fn pod(name: &str, labels: Value, requests: Value, extra_spec: Value) -> Value {
    let mut spec = json!({
        "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.9", "resources": {"requests": requests}}],
    });
    if let (Value::Object(s), Value::Object(extra)) = (&mut spec, extra_spec) {
        s.extend(extra);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": spec,
    })
}

fn diverse_pod(kind: Kind, app: &str, name: &str, rng: &mut SplitMix64) -> Value {
    let cpu = rng.pick(&["100m", "250m", "500m", "1", "1500m", "2", "4"]);
    let memory = rng.pick(&["100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"]);
    let selector = json!({"matchLabels": {"app": app}});
    let spread = |key: &str| json!({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector}]});
    let extra = match kind {
        Kind::Generic => json!({}),
        Kind::ZoneSpread => spread(ZONE),
        Kind::HostnameSpread => spread(HOSTNAME),
        Kind::ZoneAffinity => {
            json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": selector, "topologyKey": ZONE}]}}})
        }
        Kind::HostnameAntiAffinity => {
            json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": selector, "topologyKey": HOSTNAME}]}}})
        }
    };
    pod(name, json!({"app": app}), json!({"cpu": cpu, "memory": memory}), extra)
}

/// `n` pending pods: one fifth each generic, zone spread, hostname spread, zone self-affinity,
/// hostname self anti-affinity (the remainder of n/5 is generic, as in Karpenter's benchmark).
/// Pods of one kind are grouped into "apps" of 10-50 replicas sharing an `app` label, which is
/// what their selectors select; every pod has its own random cpu/memory requests.
pub fn diverse_pods(n: usize, seed: u64) -> Vec<Value> {
    diverse_pods_grouped(n, seed, (10, 50))
}

/// [`diverse_pods`] with app sizes drawn from `app_size` (inclusive). `(usize::MAX, usize::MAX)`
/// puts every pod of a kind into one app, as Karpenter's own benchmark does for its
/// anti-affinity pods (all labelled `app: nginx`, so every one needs its own node).
pub fn diverse_pods_grouped(n: usize, seed: u64, app_size: (usize, usize)) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    let per_kind = n / 5;
    let mut pods = Vec::with_capacity(n);
    for kind in Kind::ALL {
        let count = if kind == Kind::Generic { n - 4 * per_kind } else { per_kind };
        let mut made = 0;
        let mut group = 0;
        while made < count {
            let size = if app_size.0 == app_size.1 { app_size.0 } else { rng.between(app_size.0, app_size.1) }.min(count - made);
            let app = format!("{}-{group}", kind.tag());
            for r in 0..size {
                pods.push(diverse_pod(kind, &app, &format!("{app}-{r}"), &mut rng));
            }
            made += size;
            group += 1;
        }
    }
    pods
}

/// One NodePool allowing on-demand and spot, no other requirement.
pub fn default_nodepool() -> Value {
    json!({
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "default"},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]}],
        }}},
    })
}

pub const DIVERSE_TYPES: usize = 400;
pub const DIVERSE_SEED: u64 = 42;

/// The full request of the diverse benchmark with `n` pods over 400 synthetic types.
pub fn diverse_request(n: usize) -> Request {
    let mut objects = vec![default_nodepool()];
    objects.extend(diverse_pods(n, DIVERSE_SEED));
    Request { objects, catalog: Some(synthetic_catalog(DIVERSE_TYPES)), ..Default::default() }
}

/// The diverse request with one app per constraint kind (n/5 pods share one label and select
/// each other): the hardest grouping, closest to Karpenter's benchmark for the anti-affinity
/// pods, and many more NodeClaims.
pub fn diverse_request_one_app(n: usize) -> Request {
    let mut objects = vec![default_nodepool()];
    objects.extend(diverse_pods_grouped(n, DIVERSE_SEED, (usize::MAX, usize::MAX)));
    Request { objects, catalog: Some(synthetic_catalog(DIVERSE_TYPES)), ..Default::default() }
}

/// `n` pods that all carry one hostname constraint selecting the same `app` label, so that no
/// two of them may share a node (`anti`: required hostname self anti-affinity) or none may go
/// where another already is more than `maxSkew: 1` ahead (hostname topology spread): every pod
/// needs a NodeClaim of its own, the worst case for the scan over open NodeClaims (issue 21).
/// Requests are drawn as in the diverse mix.
pub fn hostname_pods(n: usize, anti: bool, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    let kind = if anti { Kind::HostnameAntiAffinity } else { Kind::HostnameSpread };
    (0..n).map(|i| diverse_pod(kind, "web", &format!("web-{i}"), &mut rng)).collect()
}

/// [`hostname_pods`] with the default NodePool over the 400 synthetic types.
pub fn hostname_request(n: usize, anti: bool) -> Request {
    let mut objects = vec![default_nodepool()];
    objects.extend(hostname_pods(n, anti, DIVERSE_SEED));
    Request { objects, catalog: Some(synthetic_catalog(DIVERSE_TYPES)), ..Default::default() }
}

/// The exclusive-placement workloads (issue 29): one NodePool of m5 instances on the embedded
/// catalog and either a JobSet of `groups` Jobs × `per_group` pods with
/// `alpha.jobset.sigs.k8s.io/exclusive-topology: <key>` (`lws` false), or a LeaderWorkerSet of
/// `groups` groups of `per_group` pods with `leaderworkerset.sigs.k8s.io/exclusive-topology`.
/// Each group gets a domain of `key` to itself: one pod affinity and one inverse anti-affinity
/// group per Job or group, the shape that was cubic in groups.
pub fn exclusive_text(lws: bool, groups: usize, per_group: usize, key: &str) -> String {
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}\n";
    let pod = "{containers: [{name: c, image: i, resources: {requests: {cpu: '1', memory: 1Gi}}}]}";
    let workload = if lws {
        format!("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: lws\n  annotations: {{leaderworkerset.sigs.k8s.io/exclusive-topology: {key}}}\nspec:\n  replicas: {groups}\n  leaderWorkerTemplate:\n    size: {per_group}\n    workerTemplate:\n      spec: {pod}\n")
    } else {
        format!("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n  annotations: {{alpha.jobset.sigs.k8s.io/exclusive-topology: {key}}}\nspec:\n  replicatedJobs:\n    - name: w\n      replicas: {groups}\n      template:\n        spec:\n          parallelism: {per_group}\n          template:\n            spec: {pod}\n")
    };
    format!("{pool}---\n{workload}")
}

/// [`exclusive_text`] as a request.
pub fn exclusive_request(lws: bool, groups: usize, per_group: usize, key: &str) -> Request {
    let text = exclusive_text(lws, groups, per_group, key);
    Request { inputs: vec![nodecast::Input { name: Some("exclusive.yaml".into()), text }], ..Default::default() }
}

// ---------------------------------------------------------------------------------------------
// The GPU benchmark (embedded AWS catalog, the example GPU NodePools)
// ---------------------------------------------------------------------------------------------

pub const GPU_NODEPOOLS: [(&str, &str); 3] = [
    ("gpu-inference.yaml", include_str!("../../examples/nodepools/gpu-inference.yaml")),
    ("gpu-training.yaml", include_str!("../../examples/nodepools/gpu-training.yaml")),
    ("gpu-general.yaml", include_str!("../../examples/nodepools/gpu-general.yaml")),
];

pub const GPU_SEED: u64 = 7;

/// `n` pending GPU pods: 50% 1-GPU (inference GPUs), 20% 2-GPU, 20% 4-GPU, 10% 8-GPU (training
/// GPUs), each with a required `karpenter.k8s.aws/instance-gpu-name` node affinity and a
/// toleration for the `nvidia.com/gpu` taint of the GPU NodePools.
pub fn gpu_pods(n: usize, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let (gpus, names, cpu, memory) = gpu_shape(&mut rng);
            let requests = json!({"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpus.to_string()});
            let extra = json!({
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": names}]}
                ]}}},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            });
            let app = format!("gpu{gpus}");
            let mut p = pod(&format!("{app}-{i}"), json!({"app": app}), requests.clone(), extra);
            p["spec"]["containers"][0]["resources"]["limits"] = json!({"nvidia.com/gpu": gpus.to_string()});
            p
        })
        .collect()
}

/// The full GPU request: the three example NodePool files (with their EC2NodeClasses) plus
/// `n` GPU pods, over the embedded AWS catalog.
pub fn gpu_request(n: usize) -> Request {
    Request {
        inputs: GPU_NODEPOOLS.iter().map(|(name, text)| nodecast::Input { name: Some(name.to_string()), text: text.to_string() }).collect(),
        objects: gpu_pods(n, GPU_SEED),
        catalog: None,
        ..Default::default()
    }
}

/// The example NodePools with their `spec.limits` removed (the examples cap GPUs at 8 + 16, so
/// with the limits most GPU pods of a large batch are unschedulable).
pub fn without_limits(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len());
    let mut skipping = false;
    for line in yaml.lines() {
        if line == "  limits:" {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with("    ") {
            continue;
        }
        skipping = false;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// [`gpu_request`] over NodePools without limits, so every pod that some GPU type fits is placed.
pub fn gpu_request_unlimited(n: usize) -> Request {
    let mut req = gpu_request(n);
    for input in &mut req.inputs {
        input.text = without_limits(&input.text);
    }
    req
}

/// One GPU pod shape of the GPU benchmark: (GPUs, required GPU names, CPU, memory), drawn with
/// the 50/20/20/10 % mix of 1/2/4/8-GPU pods.
fn gpu_shape(rng: &mut SplitMix64) -> (u32, &'static [&'static str], &'static str, &'static str) {
    match rng.below(10) {
        0..=4 => (
            1,
            *rng.pick(&[&["t4"][..], &["a10g"], &["l4"], &["a10g", "l4"], &["t4", "a10g", "l4"]]),
            *rng.pick(&["2", "3", "4"]),
            *rng.pick(&["8Gi", "12Gi", "14Gi"]),
        ),
        5 | 6 => {
            (2, *rng.pick(&[&["a10g"][..], &["a100", "h100"], &["a10g", "a100"]]), *rng.pick(&["8", "16"]), *rng.pick(&["32Gi", "64Gi"]))
        }
        7 | 8 => (4, *rng.pick(&[&["a10g"][..], &["a100"], &["a100", "h100"]]), *rng.pick(&["16", "32"]), *rng.pick(&["64Gi", "128Gi"])),
        _ => (8, *rng.pick(&[&["a100"][..], &["h100"], &["a100", "h100"]]), "48", *rng.pick(&["256Gi", "512Gi"])),
    }
}

/// `n` GPU pods as Deployments: each Deployment has 5–100 replicas (fewer for the last one) of
/// one [`gpu_shape`], with the same GPU-name node affinity, toleration and GPU limit as
/// [`gpu_pods`]. Replicas of one template are identical, which is how GPU fleets usually look
/// (and what lets a scheduler reuse work across replicas).
pub fn gpu_deployments(n: usize, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    let mut made = 0;
    while made < n {
        let replicas = rng.between(5, 100).min(n - made);
        let (gpus, names, cpu, memory) = gpu_shape(&mut rng);
        let name = format!("gpu{gpus}-{}", out.len());
        out.push(json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "containers": [{"name": "app", "image": "registry.example/inference:1", "resources": {
                            "requests": {"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpus.to_string()},
                            "limits": {"nvidia.com/gpu": gpus.to_string()},
                        }}],
                        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": names}]}
                        ]}}},
                        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    },
                },
            },
        }));
        made += replicas;
    }
    out
}

/// [`gpu_request_unlimited`] with the pods as [`gpu_deployments`].
pub fn gpu_request_deployments(n: usize) -> Request {
    let mut req = gpu_request_unlimited(0);
    req.objects = gpu_deployments(n, GPU_SEED);
    req
}

// ---------------------------------------------------------------------------------------------
// Packing onto an existing cluster
// ---------------------------------------------------------------------------------------------

pub const PACKING_SEED: u64 = 99;

/// An existing cluster of `nodes` initialized Karpenter nodes (generation-0 synthetic types of
/// 2–16 vCPUs, zones in turn) each running 1–3 bound pods, plus `pending` pending pods of the
/// diverse mix ([`diverse_pods`]): the pass first tries every existing node for every pod
/// (Karpenter's `ExistingNode.CanAdd`), and only pods that fit nowhere get new NodeClaims.
pub fn packing_request(nodes: usize, pending: usize) -> Request {
    let mut rng = SplitMix64::new(PACKING_SEED);
    let types: Vec<_> = node_types().into_iter().filter(|(_, cpu, _, _)| *cpu <= 16_000).collect();
    let mut objects = vec![default_nodepool()];
    let mut bound = Vec::new();
    for i in 0..nodes {
        let (ty, _, _, t) = rng.pick(&types);
        let name = format!("ip-10-{}-{}-{}.ec2.internal", i / 65_536, i / 256 % 256, i % 256);
        let zone = ["test-zone-a", "test-zone-b", "test-zone-c"][i % 3];
        objects.push(json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {
                    "karpenter.sh/nodepool": "default",
                    "karpenter.sh/initialized": "true",
                    "karpenter.sh/registered": "true",
                    "karpenter.sh/capacity-type": if i % 4 == 0 { "spot" } else { "on-demand" },
                    "node.kubernetes.io/instance-type": format!("synth-{ty}"),
                    "topology.kubernetes.io/zone": zone,
                    "kubernetes.io/hostname": name,
                    "kubernetes.io/arch": "amd64",
                    "kubernetes.io/os": "linux",
                },
            },
            "status": {"capacity": t["capacity"], "allocatable": t["allocatable"], "conditions": [{"type": "Ready", "status": "True"}]},
        }));
        for b in 0..rng.between(1, 3) {
            let cpu = *rng.pick(&["100m", "250m", "500m"]);
            let memory = *rng.pick(&["128Mi", "256Mi", "512Mi"]);
            let mut p = pod(
                &format!("bound-{i}-{b}"),
                json!({"app": format!("bound-{}", i % 50)}),
                json!({"cpu": cpu, "memory": memory}),
                json!({"nodeName": name}),
            );
            p["status"] = json!({"phase": "Running"});
            bound.push(p);
        }
    }
    objects.extend(bound);
    objects.extend(diverse_pods(pending, PACKING_SEED));
    Request { objects, catalog: Some(synthetic_catalog(DIVERSE_TYPES)), ..Default::default() }
}

// ---------------------------------------------------------------------------------------------

/// What one plan produced, printed once per case during bench setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Pending pods the pass considered (placed + unschedulable).
    pub pods: usize,
    pub node_claims: usize,
    /// Pods placed on new NodeClaims.
    pub scheduled: usize,
    /// Pods placed on existing nodes.
    pub on_existing: usize,
    pub unschedulable: usize,
}

/// Plan once and summarise; panics (with the errors) if the request is rejected, so a broken
/// generator is caught before anything is timed.
pub fn summarize(req: &Request) -> Summary {
    let answer = nodecast::plan(req);
    match &answer.outcome {
        Outcome::Success(p) => {
            let scheduled = p.node_claims.iter().map(|c| c.pods.len()).sum();
            let on_existing = p.existing_nodes.iter().map(|n| n.pods.len()).sum();
            Summary {
                pods: scheduled + on_existing + p.unschedulable.len(),
                node_claims: p.node_claims.len(),
                scheduled,
                on_existing,
                unschedulable: p.unschedulable.len(),
            }
        }
        Outcome::Failure { .. } => panic!("benchmark request rejected:\n{}", answer.to_json()),
    }
}

/// Print a setup line for a case (to stderr, so criterion's own output stays parseable).
pub fn report(case: &str, req: &Request) -> Summary {
    let s = summarize(req);
    eprintln!(
        "[setup] {case}: {} pods -> {} NodeClaims, {} pods placed on them, {} on existing nodes, {} unschedulable",
        s.pods, s.node_claims, s.scheduled, s.on_existing, s.unschedulable
    );
    s
}

// ---------------------------------------------------------------------------------------------
// The consolidation benchmark (an existing cluster: Nodes with bound pods)
// ---------------------------------------------------------------------------------------------

/// The clock of every consolidation request.
pub const CONSOLIDATION_NOW: &str = "2026-11-22T12:00:00Z";
/// Unix seconds of [`CONSOLIDATION_NOW`].
const CONSOLIDATION_NOW_UNIX: i64 = 1_795_348_800;
pub const CONSOLIDATION_SEED: u64 = 2026;

/// Share of nodes (in percent) that are left nearly empty: under 25 % of CPU and memory used.
pub const LOW_UTILISATION_PERCENT: usize = 30;

/// RFC 3339 of a unix time (UTC, whole seconds). Enough calendar for timestamps after 1970.
pub fn rfc3339(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The consolidation NodePool: `default`, on-demand only, WhenEmptyOrUnderutilized,
/// consolidateAfter 0s, one budget of `budget_nodes` (e.g. `"10%"`).
pub fn consolidation_nodepool(budget_nodes: &str) -> Value {
    json!({
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "default"},
        "spec": {
            "disruption": {
                "consolidationPolicy": "WhenEmptyOrUnderutilized",
                "consolidateAfter": "0s",
                "budgets": [{"nodes": budget_nodes}],
            },
            "template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
            }},
        },
    })
}

/// A ReplicaSet's pod shape: every replica requests the same.
struct App {
    name: String,
    namespace: &'static str,
    hash: String,
    cpu_milli: u64,
    memory_mib: u64,
    replicas: usize,
}

const CPU_MILLI: [u64; 7] = [50, 100, 250, 500, 750, 1000, 2000];
const MEMORY_MIB: [u64; 7] = [64, 128, 256, 512, 1024, 2048, 4096];
const NAMESPACES: [&str; 4] = ["default", "payments", "search", "batch"];

fn parse_milli(cpu: &str) -> u64 {
    match cpu.strip_suffix('m') {
        Some(m) => m.parse().unwrap(),
        None => cpu.parse::<u64>().unwrap() * 1000,
    }
}

fn parse_mib(memory: &str) -> u64 {
    match memory.strip_suffix("Mi") {
        Some(m) => m.parse().unwrap(),
        None => memory.strip_suffix("Gi").unwrap().parse::<u64>().unwrap() * 1024,
    }
}

/// A generation-0 synthetic type (`synth-0` .. `synth-35`, the cheapest of each shape):
/// (index, allocatable millicores, allocatable MiB, catalog entry).
fn node_types() -> Vec<(usize, u64, u64, Value)> {
    (0..CORES.len() * RATIOS.len())
        .map(|i| {
            let t = synth_type(i);
            let cpu = parse_milli(t["allocatable"]["cpu"].as_str().unwrap());
            let mem = parse_mib(t["allocatable"]["memory"].as_str().unwrap());
            (i, cpu, mem, t)
        })
        // Nothing below 2 vCPUs: real node pools rarely launch them for busy clusters.
        .filter(|(_, cpu, _, _)| *cpu >= 1900)
        .collect()
}

/// An existing cluster of `nodes` Karpenter-managed nodes running `pods` pods (owned by
/// ReplicaSets), for consolidation. Returns the objects (Nodes then Pods, no NodePool).
///
/// Nodes were created 1–21 days before [`CONSOLIDATION_NOW`], inside the default `expireAfter`
/// of 720h, so expiration finds nothing.
///
/// Per node: [`LOW_UTILISATION_PERCENT`] % of nodes get 1–4 pods and a utilisation target of
/// 5–25 %; the others share the remaining pods (10–45 each before evening out the total) at a
/// target of 50–95 %. The node's type is then the cheapest generation-0 synthetic type whose
/// allocatable CPU and memory are both at least the pods' requests ÷ the target, so no node is
/// used above its target (and the low nodes stay under 25 %). Every node has at least one pod,
/// so emptiness finds nothing and the pass reaches multi-node consolidation.
pub fn cluster_objects(nodes: usize, pods: usize, seed: u64) -> Vec<Value> {
    assert!(pods >= nodes, "every node needs at least one pod");
    let mut rng = SplitMix64::new(seed);
    let types = node_types();

    // ReplicaSets: ~40 replicas each on average, requests correlated (bigger CPU, bigger memory).
    let mut apps: Vec<App> = (0..pods.div_ceil(40).max(1))
        .map(|a| {
            let c = rng.below(CPU_MILLI.len());
            let m = (c + rng.below(3)).saturating_sub(1).min(MEMORY_MIB.len() - 1);
            App {
                name: format!("app-{a}"),
                namespace: NAMESPACES[a % NAMESPACES.len()],
                hash: format!("{:010x}", rng.next_u64() & 0xff_ffff_ffff),
                cpu_milli: CPU_MILLI[c],
                memory_mib: MEMORY_MIB[m],
                replicas: 0,
            }
        })
        .collect();

    // Pods per node: low nodes 1-4, the rest 10-45, then evened out to exactly `pods`.
    let low: Vec<bool> = (0..nodes).map(|_| rng.below(100) < LOW_UTILISATION_PERCENT).collect();
    let mut counts: Vec<usize> = low.iter().map(|&l| if l { rng.between(1, 4) } else { rng.between(10, 45) }).collect();
    let busy: Vec<usize> = (0..nodes).filter(|&i| !low[i]).collect();
    assert!(!busy.is_empty());
    let mut total: usize = counts.iter().sum();
    while total != pods {
        let i = *rng.pick(&busy);
        if total < pods && counts[i] < 100 {
            counts[i] += 1;
            total += 1;
        } else if total > pods && counts[i] > 5 {
            counts[i] -= 1;
            total -= 1;
        }
    }

    let mut node_objects = Vec::with_capacity(nodes);
    let mut pod_objects = Vec::with_capacity(pods);
    for (i, &count) in counts.iter().enumerate() {
        let name = format!("ip-10-{}-{}-{}.ec2.internal", i / 65_536, i / 256 % 256, i % 256);
        let on_node: Vec<usize> = (0..count).map(|_| rng.below(apps.len())).collect();
        let cpu: u64 = on_node.iter().map(|&a| apps[a].cpu_milli).sum();
        let mem: u64 = on_node.iter().map(|&a| apps[a].memory_mib).sum();
        let target = if low[i] { rng.between(5, 25) } else { rng.between(50, 95) } as u64;
        // Cheapest type with allocatable >= requests / target; the largest that fits otherwise.
        let (ty, _, _, t) = types
            .iter()
            .filter(|(_, c, m, _)| c * target >= cpu * 100 && m * target >= mem * 100)
            .min_by(|a, b| a.3["onDemandPrice"].as_f64().unwrap().total_cmp(&b.3["onDemandPrice"].as_f64().unwrap()))
            .or_else(|| types.iter().rev().find(|(_, c, m, _)| *c >= cpu && *m >= mem))
            .expect("some type fits the node's pods");
        let zone = ["test-zone-a", "test-zone-b", "test-zone-c"][i % 3];
        let created = CONSOLIDATION_NOW_UNIX - 86_400 * rng.between(1, 20) as i64 - rng.below(86_400) as i64;
        node_objects.push(json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "creationTimestamp": rfc3339(created),
                "labels": {
                    "karpenter.sh/nodepool": "default",
                    "karpenter.sh/initialized": "true",
                    "karpenter.sh/registered": "true",
                    "karpenter.sh/capacity-type": "on-demand",
                    "node.kubernetes.io/instance-type": format!("synth-{ty}"),
                    "topology.kubernetes.io/zone": zone,
                    "kubernetes.io/hostname": name,
                    "kubernetes.io/arch": "amd64",
                    "kubernetes.io/os": "linux",
                },
            },
            "status": {
                "capacity": t["capacity"],
                "allocatable": t["allocatable"],
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }));
        for a in on_node {
            let app = &mut apps[a];
            let pod_name = format!("{}-{}-{:05x}", app.name, app.hash, app.replicas);
            app.replicas += 1;
            let mut p = pod(
                &pod_name,
                json!({"app": app.name, "pod-template-hash": app.hash}),
                json!({"cpu": format!("{}m", app.cpu_milli), "memory": format!("{}Mi", app.memory_mib)}),
                json!({"nodeName": name}),
            );
            p["metadata"]["namespace"] = json!(app.namespace);
            p["metadata"]["ownerReferences"] = json!([{
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": format!("{}-{}", app.name, app.hash),
                "uid": format!("00000000-0000-4000-8000-{:012x}", a),
                "controller": true,
                "blockOwnerDeletion": true,
            }]);
            p["status"] = json!({"phase": "Running"});
            pod_objects.push(p);
        }
    }
    node_objects.extend(pod_objects);
    node_objects
}

pub const CONSOLIDATION_NODES: usize = 1000;
pub const CONSOLIDATION_PODS: usize = 20_000;

/// The consolidation request: the 400-type synthetic catalog, the `default` NodePool with one
/// budget of `budget_nodes`, and [`cluster_objects`] of `nodes` nodes and `pods` pods, at
/// [`CONSOLIDATION_NOW`].
pub fn consolidation_request(nodes: usize, pods: usize, budget_nodes: &str) -> Request {
    let mut objects = vec![consolidation_nodepool(budget_nodes)];
    objects.extend(cluster_objects(nodes, pods, CONSOLIDATION_SEED));
    Request { objects, catalog: Some(synthetic_catalog(DIVERSE_TYPES)), now: Some(CONSOLIDATION_NOW.to_string()), ..Default::default() }
}

/// What one consolidation decision produced, printed once per case during bench setup.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionSummary {
    pub nodes: usize,
    pub pods: usize,
    pub decision: String,
    pub method: Option<String>,
    pub disrupted: usize,
    pub replacement: Option<String>,
    pub price_before: f64,
    pub price_after: f64,
    pub seconds: f64,
}

/// Decide once (through the `consolidate` facade) and summarise; panics (with the errors) if
/// the request is rejected.
pub fn summarize_decision(req: &Request) -> DecisionSummary {
    let t = std::time::Instant::now();
    let answer = nodecast::consolidate(req);
    let seconds = t.elapsed().as_secs_f64();
    match &answer.outcome {
        Outcome::Success(d) => DecisionSummary {
            nodes: req.objects.iter().filter(|o| o["kind"] == "Node").count(),
            pods: req.objects.iter().filter(|o| o["kind"] == "Pod").count(),
            decision: d.decision.to_string(),
            method: d.method.map(|m| m.as_str().to_string()),
            disrupted: d.disrupted_nodes.len(),
            replacement: d.replacement.as_ref().and_then(|r| r.instance_type.clone()),
            price_before: d.price_per_hour_before,
            price_after: d.price_per_hour_after,
            seconds,
        },
        Outcome::Failure { .. } => panic!("benchmark request rejected:\n{}", answer.to_json()),
    }
}

/// Print a setup line for a consolidation case (to stderr).
pub fn report_decision(case: &str, req: &Request) -> DecisionSummary {
    let s = summarize_decision(req);
    eprintln!(
        "[setup] {case}: {} nodes, {} pods -> {} ({}), {} nodes disrupted{}, ${:.2}/h -> ${:.2}/h, first run {:.3} s",
        s.nodes,
        s.pods,
        s.decision,
        s.method.as_deref().unwrap_or("-"),
        s.disrupted,
        s.replacement.as_ref().map(|r| format!(", replacement {r}")).unwrap_or_default(),
        s.price_before,
        s.price_after,
        s.seconds
    );
    s
}

// ---------------------------------------------------------------------------------------------
// Lifecycle simulation: a week of GPU jobs
// ---------------------------------------------------------------------------------------------

/// Job templates of the simulation benchmark: (reference, share in %, run time range in minutes).
/// 1-GPU jobs go to `gpu-inference` (t4/a10g/l4), multi-GPU training to `gpu-training`.
pub const SIM_JOBS: [(&str, usize, (usize, usize)); 4] = [
    ("Job/ml/batch-1gpu", 55, (5, 60)),
    ("Job/ml/train-2gpu", 20, (20, 120)),
    ("Job/ml/train-4gpu", 15, (30, 180)),
    ("Job/ml/train-8gpu", 10, (60, 360)),
];

const SIM_TEMPLATES: &str = r#"
apiVersion: batch/v1
kind: Job
metadata: {name: batch-1gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: inference}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "3", memory: 12Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-2gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "16", memory: 64Gi, nvidia.com/gpu: "2"}, limits: {nvidia.com/gpu: "2"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-4gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "4"}, limits: {nvidia.com/gpu: "4"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-8gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "90", memory: 600Gi, nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
"#;

/// A 7-day CSV trace of `jobs` GPU jobs (arrivals uniform over the week) on the example GPU
/// NodePools without their limits, default simulation settings with `seed`.
pub fn simulate_week_request(jobs: usize, seed: u64) -> Request {
    let mut g = SplitMix64::new(seed);
    let mut rows: Vec<(usize, &str, usize)> = (0..jobs)
        .map(|_| {
            let mut r = g.below(100);
            let (wl, _, (lo, hi)) = SIM_JOBS
                .iter()
                .find(|(_, share, _)| {
                    let hit = r < *share;
                    r = r.saturating_sub(*share);
                    hit
                })
                .unwrap_or(&SIM_JOBS[0]);
            (g.below(7 * 86_400), *wl, g.between(*lo, *hi))
        })
        .collect();
    rows.sort();
    let mut csv = String::from("time,workload,replicas,runTime\n");
    for (t, wl, run) in rows {
        csv.push_str(&format!("{t}s,{wl},1,{run}m\n"));
    }
    let mut inputs: Vec<nodecast::Input> = GPU_NODEPOOLS[..2]
        .iter()
        .map(|(name, text)| nodecast::Input { name: Some(name.to_string()), text: without_limits(text) })
        .collect();
    inputs.push(nodecast::Input { name: Some("jobs.yaml".into()), text: SIM_TEMPLATES.into() });
    Request {
        inputs,
        trace: Some(nodecast::simulate::TraceInput { name: Some("week.csv".into()), text: csv, format: None }),
        simulation: Some(nodecast::simulate::SimSettings { seed, end_seconds: Some(7 * 86_400), ..Default::default() }),
        ..Default::default()
    }
}

/// [`simulate_week_request`] without the jobs' `karpenter.sh/do-not-disrupt` annotation, so every
/// busy `gpu-inference` node is a single-node consolidation candidate in every disruption pass.
pub fn simulate_week_request_disruptable(jobs: usize, seed: u64) -> Request {
    let mut req = simulate_week_request(jobs, seed);
    for input in &mut req.inputs {
        input.text = input.text.replace("    metadata: {annotations: {karpenter.sh/do-not-disrupt: \"true\"}}\n", "");
    }
    req
}

/// The `p`-quantile (0..=1) of `sorted` by nearest rank, 0 when empty: the percentiles the
/// bench examples print (optimize_gap, advise_recovery).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The bench examples' arguments `[SEEDS] [PODS...]`: seeds (default `default_seeds`) and
/// instance sizes (default 30 and 200 pods).
pub fn seeds_and_sizes(default_seeds: u64) -> (u64, Vec<usize>) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds = args.first().and_then(|s| s.parse().ok()).unwrap_or(default_seeds);
    let sizes = if args.len() > 1 { args[1..].iter().filter_map(|s| s.parse().ok()).collect() } else { vec![30, 200] };
    (seeds, sizes)
}

// ---------------------------------------------------------------------------------------------
// Capacity reservations (issue 38): the GPU input with and without 100 reservations
// ---------------------------------------------------------------------------------------------

/// GPU types the reservations of [`reservations_document`] are for (every one of the example
/// pools' GPUs: T4, A10G, L4, A100, H100), cycled.
const RESERVED_TYPES: [&str; 10] = [
    "g4dn.xlarge",
    "g5.xlarge",
    "g5.12xlarge",
    "g5.48xlarge",
    "g6.xlarge",
    "g6.12xlarge",
    "p4d.24xlarge",
    "p5.48xlarge",
    "g5.2xlarge",
    "g6.2xlarge",
];
const RESERVED_ZONES: [&str; 3] = ["us-east-1a", "us-east-1b", "us-east-1c"];

/// `n` ODCRs (targeted, tagged `bench: reserved`) and capacity blocks, over [`RESERVED_TYPES`]
/// and three zones, each with 0–3 of 4 instances free: `aws ec2 describe-capacity-reservations`
/// output as the AWS CLI prints it.
pub fn reservations_document(n: usize, seed: u64) -> Value {
    reservations_document_sized(n, seed, None)
}

/// [`reservations_document`] with every reservation `Some(k)` instances large and all of them
/// free (`None`: 0–3 of 4 free, drawn as there).
pub fn reservations_document_sized(n: usize, seed: u64, free: Option<u64>) -> Value {
    let mut rng = SplitMix64::new(seed);
    let list: Vec<Value> = (0..n)
        .map(|i| {
            let block = i % 4 == 3;
            json!({
                "CapacityReservationId": format!("cr-{i:017x}"),
                "OwnerId": "123456789012",
                "InstanceType": RESERVED_TYPES[i % RESERVED_TYPES.len()],
                "AvailabilityZone": RESERVED_ZONES[(i / RESERVED_TYPES.len()) % RESERVED_ZONES.len()],
                "TotalInstanceCount": free.unwrap_or(4),
                "AvailableInstanceCount": free.unwrap_or_else(|| rng.below(4) as u64),
                "State": "active",
                "InstanceMatchCriteria": "targeted",
                "ReservationType": if block { "capacity-block" } else { "default" },
                "Tags": [{"Key": "bench", "Value": "reserved"}],
                "Tenancy": "default",
            })
        })
        .collect();
    json!({ "CapacityReservations": list })
}

/// The example GPU NodePool files without limits, their EC2NodeClasses selecting the
/// reservations tagged `bench: reserved`; with `allow_reserved`, `reserved` added to every
/// NodePool's capacity types.
pub fn reserved_pool_text(yaml: &str, allow_reserved: bool) -> String {
    let mut out = String::with_capacity(yaml.len() + 128);
    let mut in_class = false;
    for line in without_limits(yaml).lines() {
        if line.starts_with("kind: ") {
            in_class = line == "kind: EC2NodeClass";
        }
        let line = if allow_reserved {
            line.replace("values: [\"spot\", \"on-demand\"]", "values: [\"reserved\", \"spot\", \"on-demand\"]")
        } else {
            line.to_string()
        };
        let line = if allow_reserved { line.replace("values: [\"on-demand\"]", "values: [\"reserved\", \"on-demand\"]") } else { line };
        out.push_str(&line);
        out.push('\n');
        if in_class && line == "spec:" {
            out.push_str("  capacityReservationSelectorTerms:\n    - tags: {bench: reserved}\n");
        }
    }
    out
}

/// The GPU input ([`gpu_request_unlimited`]'s pods) over the reservation-aware pools, with
/// `reservations` reservations (0: no reservations document at all).
pub fn reserved_request(n: usize, reservations: usize, allow_reserved: bool) -> Request {
    reserved_request_sized(n, reservations, allow_reserved, None)
}

/// Free instances per reservation in the `ample` case: more than the NodeClaims of a
/// 10,000-pod pass (each NodeClaim holds one slot of every reservation compatible with it),
/// so no pod is deferred and every pod is placed, as without reservations.
pub const AMPLE_RESERVATION: u64 = 100_000;

/// [`reserved_request`] with reservations sized as [`reservations_document_sized`] makes them.
pub fn reserved_request_sized(n: usize, reservations: usize, allow_reserved: bool, free: Option<u64>) -> Request {
    let mut inputs: Vec<nodecast::Input> = GPU_NODEPOOLS
        .iter()
        .map(|(name, text)| nodecast::Input { name: Some(name.to_string()), text: reserved_pool_text(text, allow_reserved) })
        .collect();
    if reservations > 0 {
        inputs.push(nodecast::Input {
            name: Some("reservations.json".into()),
            text: reservations_document_sized(reservations, GPU_SEED, free).to_string(),
        });
    }
    Request { inputs, objects: gpu_pods(n, GPU_SEED), catalog: None, now: Some("2026-12-01T12:00:00Z".into()), ..Default::default() }
}

// ---------------------------------------------------------------------------------------------
// The DRA allocator (`--ignore-dra-requests=false`, issue 28)
// ---------------------------------------------------------------------------------------------

/// `pods` pods over `templates` ResourceClaimTemplates (round robin), each template 8
/// one-device requests over an `allNodes` ResourceSlice of 7 devices, one NodePool open to the
/// whole embedded catalog: every device search fails after 95,900 steps (the worst input under
/// the per-search bound), and every instance type is a candidate of every new NodeClaim.
pub fn dra_hostile_request(pods: usize, templates: usize) -> Request {
    let devices: String = (0..7).map(|i| format!("  - name: nic-{i}\n")).collect();
    let requests: String = (0..8).map(|i| format!("      - name: r{i}\n        exactly: {{deviceClassName: nic}}\n")).collect();
    let mut text = format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: general}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: []\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: nic}}\nspec:\n  selectors:\n  - cel: {{expression: 'device.driver == \"example.com\"'}}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: shared}}\nspec:\n  driver: example.com\n  pool: {{name: shared, generation: 1, resourceSliceCount: 1}}\n  allNodes: true\n  devices:\n{devices}"
    );
    for t in 0..templates {
        text += &format!("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: t{t}, namespace: default}}\nspec:\n  spec:\n    devices:\n      requests:\n{requests}");
    }
    for p in 0..pods {
        text += &format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{p}, namespace: default}}\nspec:\n  resourceClaims: [{{name: nics, resourceClaimTemplateName: t{}}}]\n  containers:\n  - {{name: c, image: x, resources: {{requests: {{cpu: \"1\"}}, claims: [{{name: nics}}]}}}}\n",
            p % templates.max(1)
        );
    }
    let mut req = Request { inputs: vec![nodecast::Input { name: Some("dra-hostile.yaml".into()), text }], ..Default::default() };
    req.settings.ignore_dra_requests = false;
    req
}

/// `pods` copies of examples/dra/gpu-dra.yaml's pod (one A10G with 20Gi through a claim
/// template) on examples/nodepools/gpu-inference.yaml without its limits, with the AWS
/// provider's DRANVIDIAGPU gate: the allocator's ordinary path (each NodeClaim's GPUs taken
/// pod by pod).
pub fn dra_gpu_request(pods: usize) -> Request {
    let example = include_str!("../../examples/dra/gpu-dra.yaml");
    let cut = example.find("# Pod \"dra-inference\"").expect("the example's pod");
    let (objects, pod) = example.split_at(cut);
    let mut text = objects.to_string();
    for p in 0..pods {
        text += &pod.replace("name: dra-inference", &format!("name: dra-inference-{p}"));
        text += "\n---\n";
    }
    let pool = without_limits(include_str!("../../examples/nodepools/gpu-inference.yaml"));
    let mut req = Request {
        inputs: vec![
            nodecast::Input { name: Some("gpu-inference.yaml".into()), text: pool },
            nodecast::Input { name: Some("gpu-dra.yaml".into()), text },
        ],
        ..Default::default()
    };
    req.settings.ignore_dra_requests = false;
    req.settings.aws_feature_gates.apply("DRANVIDIAGPU=true").expect("a known gate");
    req
}
