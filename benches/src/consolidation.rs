//! The consolidation benchmark: an existing cluster of Nodes with bound pods.

use super::*;

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

pub(crate) fn parse_milli(cpu: &str) -> u64 {
    match cpu.strip_suffix('m') {
        Some(m) => m.parse().unwrap(),
        None => cpu.parse::<u64>().unwrap() * 1000,
    }
}

pub(crate) fn parse_mib(memory: &str) -> u64 {
    match memory.strip_suffix("Mi") {
        Some(m) => m.parse().unwrap(),
        None => memory.strip_suffix("Gi").unwrap().parse::<u64>().unwrap() * 1024,
    }
}

/// A generation-0 synthetic type (`synth-0` .. `synth-35`, the cheapest of each shape):
/// (index, allocatable millicores, allocatable MiB, catalog entry).
pub(crate) fn node_types() -> Vec<(usize, u64, u64, Value)> {
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
