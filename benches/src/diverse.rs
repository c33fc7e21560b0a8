//! The diverse benchmark (Karpenter's `scheduling_benchmark_test.go` shape), hostname rules and exclusive placement: synthetic catalogs and pods.

use super::*;

/// vCPU sizes of the synthetic catalog (1..96 cores).
pub(crate) const CORES: [u32; 12] = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 72, 96];
/// GiB of memory per vCPU with the matching on-demand $/vCPU-hour, modelled on the AWS
/// c (compute), m (general) and r (memory) families: c5.large 0.085, m5.large 0.096,
/// r5.large 0.126 for 2 vCPU.
pub(crate) const RATIOS: [(u32, f64); 3] = [(2, 0.0425), (4, 0.048), (8, 0.063)];

/// Karpenter's default kube-reserved CPU (millicores) for a node with `cores` vCPUs:
/// 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% of the rest.
pub(crate) fn reserved_cpu_milli(cores: u32) -> u32 {
    let c = cores as f64;
    let m = 60.0 + 10.0 * (c - 1.0).clamp(0.0, 1.0) + 5.0 * (c - 2.0).clamp(0.0, 2.0) + 2.5 * (c - 4.0).max(0.0);
    m.ceil() as u32
}

/// Allocatable memory (MiB): capacity less the 7.5% VM overhead, kube-reserved
/// (11 MiB per pod + 255 MiB at 110 pods) and the 100 MiB hard eviction threshold.
pub(crate) fn allocatable_memory_mib(gib: u32) -> u32 {
    let mib = gib * 1024;
    let vm = mib - (mib as f64 * 0.075).ceil() as u32;
    vm.saturating_sub(11 * 110 + 255 + 100).max(256)
}

/// One synthetic instance type of the inline catalog (FORMAT.md §2.2).
pub(crate) fn synth_type(i: usize) -> Value {
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

pub(crate) fn pod(name: &str, labels: Value, requests: Value, extra_spec: Value) -> Value {
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

pub(crate) fn diverse_pod(kind: Kind, app: &str, name: &str, rng: &mut SplitMix64) -> Value {
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
