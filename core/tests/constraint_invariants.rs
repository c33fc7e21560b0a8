//! Property tests over every scheduling constraint kind at once (invariants.rs covers resources,
//! arch, GPU taints and limits on simple clusters; disruption_invariants.rs covers budgets and
//! blockers on uniform nodes). Random but valid clusters: NodePools with requirements, taints,
//! limits and weights; existing nodes with bound pods; workloads with node selectors, required
//! and preferred node affinity, tolerations, zone and hostname topology spread, pod affinity and
//! anti-affinity and GPU requests.
//!
//! `plan`: every placed pod fits (its node selector and required affinity hold on the node's
//! labels, the pool's requirements hold on the instance type, the pool's taints are tolerated,
//! requests are within allocatable), launched capacity stays within pool limits, spread,
//! affinity and anti-affinity hold, every pod is accounted for once, unschedulable pods say why,
//! and the same input gives the same bytes.
//! `consolidate` on the same clusters: do-not-disrupt nodes and pods are never disrupted, the
//! budget holds, a replacement is cheaper than what it replaces, and the answer is deterministic.

use nodecast::internal::quantity::parse_milli;
use nodecast::Request;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

const NOW: &str = "2026-11-25T12:00:00Z";
const ZONES: &[&str] = &["test-zone-a", "test-zone-b", "test-zone-c"];
const FAMILIES: &[&str] = &["compute", "general", "gpu"];
const TEAMS: &[&str] = &["ml", "web"];

struct Type {
    name: &'static str,
    cpu: i64,
    mem_gi: i64,
    arch: &'static str,
    gpus: i64,
    family: &'static str,
    price: f64,
}

const TYPES: &[Type] = &[
    Type { name: "c-2", cpu: 2, mem_gi: 4, arch: "amd64", gpus: 0, family: "compute", price: 0.08 },
    Type { name: "c-4", cpu: 4, mem_gi: 8, arch: "amd64", gpus: 0, family: "compute", price: 0.16 },
    Type { name: "c-8", cpu: 8, mem_gi: 16, arch: "amd64", gpus: 0, family: "compute", price: 0.32 },
    Type { name: "m-4", cpu: 4, mem_gi: 16, arch: "amd64", gpus: 0, family: "general", price: 0.20 },
    Type { name: "m-16", cpu: 16, mem_gi: 64, arch: "amd64", gpus: 0, family: "general", price: 0.80 },
    Type { name: "a-4", cpu: 4, mem_gi: 16, arch: "arm64", gpus: 0, family: "general", price: 0.15 },
    Type { name: "g-1", cpu: 8, mem_gi: 32, arch: "amd64", gpus: 1, family: "gpu", price: 1.00 },
    Type { name: "g-4", cpu: 32, mem_gi: 128, arch: "amd64", gpus: 4, family: "gpu", price: 3.50 },
];

fn ty(name: &str) -> &'static Type {
    TYPES.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("unknown instance type {name}"))
}

fn allocatable(t: &Type) -> Value {
    let mut a = json!({"cpu": format!("{}m", t.cpu * 1000 - 100), "memory": format!("{}Mi", t.mem_gi * 1024 - 256), "pods": "30"});
    if t.gpus > 0 {
        a["nvidia.com/gpu"] = json!(t.gpus.to_string());
    }
    a
}

fn catalog() -> Value {
    let types: Vec<Value> = TYPES
        .iter()
        .map(|t| {
            json!({"name": t.name, "allocatable": allocatable(t), "onDemandPrice": t.price,
                   "labels": {"kubernetes.io/arch": t.arch, "example.com/family": t.family, "example.com/gpus": t.gpus.to_string()}})
        })
        .collect();
    json!({"instanceTypes": types, "capacityTypes": ["on-demand"], "zones": ZONES})
}

/// A node requirement or selector term: key, operator, values.
#[derive(Debug, Clone)]
struct Expr {
    key: &'static str,
    op: &'static str,
    values: Vec<String>,
}

impl Expr {
    fn json(&self) -> Value {
        json!({"key": self.key, "operator": self.op, "values": self.values})
    }

    /// Does a node with these labels satisfy the expression (Kubernetes semantics)?
    fn holds(&self, labels: &Map<String, Value>) -> bool {
        let v = labels.get(self.key).and_then(Value::as_str);
        match self.op {
            "In" => v.is_some_and(|v| self.values.iter().any(|x| x == v)),
            "NotIn" => v.is_none_or(|v| self.values.iter().all(|x| x != v)),
            "Exists" => v.is_some(),
            "DoesNotExist" => v.is_none(),
            "Gt" => v.and_then(|v| v.parse::<i64>().ok()).is_some_and(|n| n > self.values[0].parse::<i64>().unwrap()),
            "Lt" => v.and_then(|v| v.parse::<i64>().ok()).is_some_and(|n| n < self.values[0].parse::<i64>().unwrap()),
            op => panic!("operator {op}"),
        }
    }
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Requirements a NodePool (or a pod's required affinity) may carry.
fn expr_strategy() -> impl Strategy<Value = Expr> {
    prop_oneof![
        prop::sample::subsequence(vec!["amd64", "arm64"], 1..=2).prop_map(|v| Expr {
            key: "kubernetes.io/arch",
            op: "In",
            values: strs(&v)
        }),
        prop::sample::subsequence(FAMILIES.to_vec(), 1..=2).prop_map(|v| Expr { key: "example.com/family", op: "In", values: strs(&v) }),
        prop::sample::select(FAMILIES.to_vec()).prop_map(|f| Expr { key: "example.com/family", op: "NotIn", values: strs(&[f]) }),
        prop::sample::subsequence(ZONES.to_vec(), 1..=3).prop_map(|v| Expr {
            key: "topology.kubernetes.io/zone",
            op: "In",
            values: strs(&v)
        }),
        prop::sample::select(vec!["Gt", "Lt"]).prop_map(|op| Expr { key: "example.com/gpus", op, values: strs(&["0"]) }),
        Just(Expr { key: "example.com/gpus", op: "Exists", values: vec![] }),
    ]
}

#[derive(Debug, Clone)]
struct Pool {
    requirements: Vec<Expr>,
    /// `example.com/team` label the pool puts on its nodes (a custom requirement).
    team: Option<&'static str>,
    /// `dedicated=<team>:NoSchedule`.
    tainted: bool,
    cpu_limit: Option<i64>,
    /// 0: no weight.
    weight: i64,
    budget: u32,
}

fn pool_strategy() -> impl Strategy<Value = Pool> {
    (
        prop::collection::vec(expr_strategy(), 0..3),
        prop::option::weighted(0.4, prop::sample::select(TEAMS.to_vec())),
        prop::bool::weighted(0.25),
        prop::option::weighted(0.4, 8i64..96),
        0i64..=100,
        0u32..3,
    )
        .prop_map(|(requirements, team, tainted, cpu_limit, weight, budget)| Pool {
            requirements,
            team,
            tainted: tainted && team.is_some(),
            cpu_limit,
            weight,
            budget,
        })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Spread {
    None,
    Zone,
    Hostname,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum PodAffinity {
    None,
    /// Required anti-affinity to its own app on hostname: one pod per node.
    AntiHostname,
    /// Required affinity to its own app on zone: all pods in one zone.
    SameZone,
}

#[derive(Debug, Clone)]
struct Workload {
    replicas: usize,
    cpu_m: i64,
    mem_mi: i64,
    gpus: i64,
    selector: Option<(&'static str, String)>,
    required: Vec<Expr>,
    preferred: Option<Expr>,
    tolerate_team: Option<&'static str>,
    spread: Spread,
    affinity: PodAffinity,
}

fn workload_strategy() -> impl Strategy<Value = Workload> {
    (
        1usize..5,
        100i64..4000,
        64i64..8000,
        prop_oneof![5 => Just(0i64), 1 => 1i64..3],
        prop_oneof![
            3 => Just(None),
            1 => prop::sample::select(vec!["amd64", "arm64"]).prop_map(|a| Some(("kubernetes.io/arch", a.to_string()))),
            1 => prop::sample::select(TEAMS.to_vec()).prop_map(|t| Some(("example.com/team", t.to_string()))),
            1 => prop::sample::select(ZONES.to_vec()).prop_map(|z| Some(("topology.kubernetes.io/zone", z.to_string()))),
        ],
        prop::collection::vec(expr_strategy(), 0..2),
        prop::option::weighted(0.3, expr_strategy()),
        prop::option::weighted(0.3, prop::sample::select(TEAMS.to_vec())),
        prop::sample::select(vec![Spread::None, Spread::None, Spread::Zone, Spread::Hostname]),
        prop::sample::select(vec![PodAffinity::None, PodAffinity::None, PodAffinity::AntiHostname, PodAffinity::SameZone]),
    )
        .prop_map(|(replicas, cpu_m, mem_mi, gpus, selector, required, preferred, tolerate_team, spread, affinity)| Workload {
            replicas,
            cpu_m,
            mem_mi,
            gpus,
            selector,
            required,
            preferred,
            tolerate_team,
            spread,
            affinity,
        })
}

#[derive(Debug, Clone)]
struct Existing {
    pool: usize,
    ty: usize,
    zone: usize,
    /// CPU (milli) of each bound pod.
    pods: Vec<i64>,
    dnd_node: bool,
    dnd_pod: bool,
}

fn existing_strategy() -> impl Strategy<Value = Existing> {
    (0usize..3, 0usize..6, 0usize..3, prop::collection::vec(100i64..1500, 0..3), prop::bool::weighted(0.15), prop::bool::weighted(0.2))
        .prop_map(|(pool, ty, zone, pods, dnd_node, dnd_pod)| Existing { pool, ty, zone, pods, dnd_node, dnd_pod })
}

#[derive(Debug, Clone)]
struct Cluster {
    pools: Vec<Pool>,
    existing: Vec<Existing>,
    workloads: Vec<Workload>,
}

fn cluster_strategy() -> impl Strategy<Value = Cluster> {
    (
        prop::collection::vec(pool_strategy(), 1..4),
        prop::collection::vec(existing_strategy(), 0..3),
        prop::collection::vec(workload_strategy(), 1..6),
    )
        .prop_map(|(pools, mut existing, workloads)| {
            for e in &mut existing {
                e.pool %= pools.len();
            }
            Cluster { pools, existing, workloads }
        })
}

fn pool_name(i: usize) -> String {
    format!("pool-{i}")
}

/// Labels an existing node of `e` carries.
fn existing_labels(i: usize, e: &Existing, c: &Cluster) -> Value {
    let t = &TYPES[e.ty];
    let mut l = json!({"karpenter.sh/nodepool": pool_name(e.pool), "node.kubernetes.io/instance-type": t.name,
        "topology.kubernetes.io/zone": ZONES[e.zone], "karpenter.sh/capacity-type": "on-demand", "kubernetes.io/hostname": format!("node-{i}"),
        "kubernetes.io/arch": t.arch, "example.com/family": t.family, "example.com/gpus": t.gpus.to_string()});
    if let Some(team) = c.pools[e.pool].team {
        l["example.com/team"] = json!(team);
    }
    l
}

fn objects(c: &Cluster) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, p) in c.pools.iter().enumerate() {
        let mut reqs: Vec<Value> = p.requirements.iter().map(Expr::json).collect();
        if let Some(team) = p.team {
            reqs.push(json!({"key": "example.com/team", "operator": "In", "values": [team]}));
        }
        let taints: Vec<Value> = match (p.tainted, p.team) {
            (true, Some(team)) => vec![json!({"key": "dedicated", "value": team, "effect": "NoSchedule"})],
            _ => vec![],
        };
        let mut spec = json!({
            "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s", "budgets": [{"nodes": p.budget.to_string()}]},
            "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}, "requirements": reqs, "taints": taints}}
        });
        if p.weight > 0 {
            spec["weight"] = json!(p.weight);
        }
        if let Some(l) = p.cpu_limit {
            spec["limits"] = json!({"cpu": l.to_string()});
        }
        out.push(json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": pool_name(i)}, "spec": spec}));
    }
    for (i, e) in c.existing.iter().enumerate() {
        let mut meta =
            json!({"name": format!("node-{i}"), "creationTimestamp": "2026-11-20T00:00:00Z", "labels": existing_labels(i, e, c)});
        if e.dnd_node {
            meta["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
        }
        let mut node = json!({"apiVersion": "v1", "kind": "Node", "metadata": meta, "status": {"allocatable": allocatable(&TYPES[e.ty])}});
        if c.pools[e.pool].tainted {
            node["spec"] = json!({"taints": [{"key": "dedicated", "value": c.pools[e.pool].team, "effect": "NoSchedule"}]});
        }
        out.push(node);
        for (j, cpu) in e.pods.iter().enumerate() {
            let mut pmeta = json!({"name": format!("bound-{i}-{j}"), "labels": {"app": format!("bound-{i}-{j}")}});
            if e.dnd_pod && j == 0 {
                pmeta["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
            }
            out.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": pmeta,
                "spec": {"nodeName": format!("node-{i}"), "tolerations": [{"operator": "Exists"}],
                         "containers": [{"name": "c", "resources": {"requests": {"cpu": format!("{cpu}m"), "memory": "128Mi"}}}]}}));
        }
    }
    for (i, w) in c.workloads.iter().enumerate() {
        let app = format!("w{i}");
        let mut requests = json!({"cpu": format!("{}m", w.cpu_m), "memory": format!("{}Mi", w.mem_mi)});
        if w.gpus > 0 {
            requests["nvidia.com/gpu"] = json!(w.gpus.to_string());
        }
        let mut spec = json!({"containers": [{"name": "c", "resources": {"requests": requests}}]});
        if let Some((k, v)) = &w.selector {
            spec["nodeSelector"] = json!({*k: v});
        }
        if let Some(team) = w.tolerate_team {
            spec["tolerations"] = json!([{"key": "dedicated", "operator": "Equal", "value": team, "effect": "NoSchedule"}]);
        }
        let mut affinity = Map::new();
        if !w.required.is_empty() || w.preferred.is_some() {
            let mut na = json!({});
            if !w.required.is_empty() {
                na["requiredDuringSchedulingIgnoredDuringExecution"] =
                    json!({"nodeSelectorTerms": [{"matchExpressions": w.required.iter().map(Expr::json).collect::<Vec<_>>()}]});
            }
            if let Some(p) = &w.preferred {
                na["preferredDuringSchedulingIgnoredDuringExecution"] =
                    json!([{"weight": 50, "preference": {"matchExpressions": [p.json()]}}]);
            }
            affinity.insert("nodeAffinity".into(), na);
        }
        let term = |key: &str| json!({"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}]});
        match w.affinity {
            PodAffinity::None => {}
            PodAffinity::AntiHostname => {
                affinity.insert("podAntiAffinity".into(), term("kubernetes.io/hostname"));
            }
            PodAffinity::SameZone => {
                affinity.insert("podAffinity".into(), term("topology.kubernetes.io/zone"));
            }
        }
        if !affinity.is_empty() {
            spec["affinity"] = Value::Object(affinity);
        }
        let spread_key = match w.spread {
            Spread::None => None,
            Spread::Zone => Some("topology.kubernetes.io/zone"),
            Spread::Hostname => Some("kubernetes.io/hostname"),
        };
        if let Some(key) = spread_key {
            spec["topologySpreadConstraints"] = json!([{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": app}}}]);
        }
        out.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app},
            "spec": {"replicas": w.replicas, "selector": {"matchLabels": {"app": app}},
                     "template": {"metadata": {"labels": {"app": app}}, "spec": spec}}}));
    }
    out
}

fn call(f: fn(&Request) -> String, c: &Cluster) -> Value {
    let req = Request { objects: objects(c), catalog: Some(catalog()), now: Some(NOW.into()), ..Default::default() };
    let first = f(&req);
    assert_eq!(first, f(&req), "the same request gave different answers");
    serde_json::from_str(&first).expect("answers are JSON")
}

fn q(v: &Value) -> i64 {
    parse_milli(v.as_str().unwrap_or("0")).expect("quantities in answers parse")
}

/// Workload index of a pending pod named `default/w<i>-<n>`.
fn workload_of(pod: &str) -> Option<usize> {
    let name = pod.strip_prefix("default/w")?;
    name[..name.rfind('-')?].parse().ok()
}

/// One place a pending pod landed on: its labels and, for new NodeClaims, the pool.
struct Place {
    name: String,
    labels: Map<String, Value>,
    pool: usize,
}

fn check_plan(c: &Cluster, v: &Value) -> Result<(), TestCaseError> {
    prop_assert_eq!(&v["status"], "success", "{}", v);
    let mut places: BTreeMap<String, Vec<Place>> = BTreeMap::new();
    let mut launched_cpu: BTreeMap<usize, i64> = BTreeMap::new();
    for claim in v["nodeClaims"].as_array().unwrap() {
        let t = ty(claim["instanceType"].as_str().unwrap());
        let pool: usize = claim["nodePool"].as_str().unwrap().trim_start_matches("pool-").parse().unwrap();
        let p = &c.pools[pool];
        let labels = claim["labels"].as_object().unwrap().clone();
        // The claim's labels are the type's and the pool's.
        prop_assert_eq!(labels["kubernetes.io/arch"].as_str(), Some(t.arch));
        prop_assert_eq!(labels["example.com/family"].as_str(), Some(t.family));
        prop_assert_eq!(labels.get("example.com/team").and_then(Value::as_str), p.team, "{}", claim);
        for r in &p.requirements {
            prop_assert!(r.holds(&labels), "pool-{} requires {:?}, but {} has {:?}", pool, r, t.name, labels);
        }
        // Resources: pods (and daemons) within the launched type's allocatable.
        let alloc = allocatable(t);
        for (r, need) in claim["requests"].as_object().unwrap() {
            prop_assert!(q(need) <= q(&alloc[r.as_str()]), "{}: {} {} > {}", t.name, r, need, alloc[r.as_str()]);
        }
        *launched_cpu.entry(pool).or_default() += t.cpu * 1000 - 100;
        let pods = claim["pods"].as_array().unwrap();
        prop_assert!(!pods.is_empty());
        for pod in pods {
            let name = pod.as_str().unwrap().to_string();
            let w = &c.workloads[workload_of(&name).unwrap()];
            if p.tainted {
                prop_assert_eq!(w.tolerate_team, p.team, "{} does not tolerate the taint of pool-{}", name, pool);
            }
            prop_assert!(w.gpus <= t.gpus, "{} needs {} GPUs on {}", name, w.gpus, t.name);
            places.entry(name).or_default().push(Place { name: claim["name"].as_str().unwrap().into(), labels: labels.clone(), pool });
        }
    }
    // Limits: what a pool launched, with its existing nodes, stays within its cpu limit.
    for (&pool, &cpu) in &launched_cpu {
        if let Some(limit) = c.pools[pool].cpu_limit {
            let existing: i64 = c.existing.iter().filter(|e| e.pool == pool).map(|e| TYPES[e.ty].cpu * 1000 - 100).sum();
            prop_assert!(existing + cpu <= limit * 1000, "pool-{} launched {}m over {}m existing, limit {}", pool, cpu, existing, limit);
        }
    }
    for node in v["existingNodes"].as_array().unwrap() {
        let name = node["name"].as_str().unwrap();
        let i: usize = name.trim_start_matches("node-").parse().unwrap();
        let e = &c.existing[i];
        let labels = existing_labels(i, e, c).as_object().unwrap().clone();
        for pod in node["pods"].as_array().unwrap() {
            let pod = pod.as_str().unwrap().to_string();
            let w = &c.workloads[workload_of(&pod).unwrap()];
            if c.pools[e.pool].tainted {
                prop_assert_eq!(w.tolerate_team, c.pools[e.pool].team, "{} on tainted {}", pod, name);
            }
            prop_assert!(w.gpus <= TYPES[e.ty].gpus);
            places.entry(pod).or_default().push(Place { name: name.into(), labels: labels.clone(), pool: e.pool });
        }
    }
    // Node selectors and required node affinity hold where each pod landed.
    for (pod, at) in &places {
        prop_assert_eq!(at.len(), 1, "{} placed {} times", pod, at.len());
        let w = &c.workloads[workload_of(pod).unwrap()];
        let l = &at[0].labels;
        if let Some((k, val)) = &w.selector {
            prop_assert_eq!(l.get(*k).and_then(Value::as_str), Some(val.as_str()), "{} selects {}={} on {}", pod, k, val, at[0].name);
        }
        for r in &w.required {
            prop_assert!(r.holds(l), "{} requires {:?} on {} ({:?}, pool-{})", pod, r, at[0].name, l, at[0].pool);
        }
    }
    // Spread, affinity and anti-affinity per workload.
    for (i, w) in c.workloads.iter().enumerate() {
        let mine: Vec<&Place> = places.iter().filter(|(p, _)| workload_of(p) == Some(i)).map(|(_, at)| &at[0]).collect();
        let count_by = |key: &str| {
            let mut m: BTreeMap<String, usize> = BTreeMap::new();
            for p in &mine {
                let d = if key == "kubernetes.io/hostname" { p.name.clone() } else { p.labels[key].as_str().unwrap().to_string() };
                *m.entry(d).or_default() += 1;
            }
            m
        };
        match w.affinity {
            PodAffinity::AntiHostname => {
                let by_node = count_by("kubernetes.io/hostname");
                prop_assert!(by_node.values().all(|&n| n == 1), "w{} anti-affinity broken: {:?}", i, by_node);
            }
            PodAffinity::SameZone => {
                let zones = count_by("topology.kubernetes.io/zone");
                prop_assert!(zones.len() <= 1, "w{} affinity to its own zone broken: {:?}", i, zones);
            }
            PodAffinity::None => {}
        }
        if w.spread == Spread::Zone {
            let zones = count_by("topology.kubernetes.io/zone");
            let (lo, hi) = (zones.values().min().copied().unwrap_or(0), zones.values().max().copied().unwrap_or(0));
            prop_assert!(hi - lo <= 1, "w{} zone skew {:?}", i, zones);
        }
        if w.spread == Spread::Hostname {
            let nodes = count_by("kubernetes.io/hostname");
            let (lo, hi) = (nodes.values().min().copied().unwrap_or(0), nodes.values().max().copied().unwrap_or(0));
            prop_assert!(hi - lo <= 1, "w{} hostname skew {:?}", i, nodes);
        }
    }
    // Every pending pod is placed or unschedulable with a reason, exactly once.
    let mut unschedulable = BTreeSet::new();
    for u in v["unschedulable"].as_array().unwrap() {
        let pod = u["pod"].as_str().unwrap().to_string();
        prop_assert!(!places.contains_key(&pod), "{} both placed and unschedulable", pod);
        prop_assert!(u["code"].as_str().is_some_and(|c| !c.is_empty()), "{}", u);
        let reasons = u["reasons"].as_array().unwrap();
        prop_assert!(!reasons.is_empty() && reasons.iter().all(|r| r["message"].as_str().is_some_and(|m| !m.is_empty())), "{}", u);
        prop_assert!(unschedulable.insert(pod));
    }
    let pending: usize = c.workloads.iter().map(|w| w.replicas).sum();
    prop_assert_eq!(places.len() + unschedulable.len(), pending);
    Ok(())
}

fn check_consolidate(c: &Cluster, d: &Value) -> Result<(), TestCaseError> {
    prop_assert_eq!(&d["status"], "success", "{}", d);
    let disrupted: Vec<usize> =
        d["disruptedNodes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().trim_start_matches("node-").parse().unwrap()).collect();
    let mut per_pool: BTreeMap<usize, u32> = BTreeMap::new();
    for &i in &disrupted {
        let e = &c.existing[i];
        prop_assert!(!e.dnd_node, "node-{} has do-not-disrupt", i);
        prop_assert!(!e.dnd_pod || e.pods.is_empty(), "node-{} runs a do-not-disrupt pod", i);
        *per_pool.entry(e.pool).or_default() += 1;
    }
    for (pool, n) in per_pool {
        prop_assert!(n <= c.pools[pool].budget, "pool-{}: {} disrupted, budget {}", pool, n, c.pools[pool].budget);
    }
    // A drifted node is replaced whatever the replacement costs (Karpenter's Drift method: the
    // node no longer meets its NodePool); only consolidation must save money.
    if d["reason"] == "drifted" {
        return Ok(());
    }
    let before: f64 = disrupted.iter().map(|&i| TYPES[c.existing[i].ty].price).sum();
    if let Some(r) = d.get("replacement") {
        prop_assert!(r["pricePerHour"].as_f64().unwrap() < before, "replacement {} is not cheaper than {}", r, before);
    }
    prop_assert!(d["pricePerHourAfter"].as_f64() <= d["pricePerHourBefore"].as_f64());
    Ok(())
}

fn plan_json(r: &Request) -> String {
    nodecast::plan(r).to_json()
}

fn consolidate_json(r: &Request) -> String {
    nodecast::consolidate(r).to_json()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn plan_respects_every_constraint(c in cluster_strategy()) {
        let v = call(plan_json, &c);
        check_plan(&c, &v)?;
    }

    #[test]
    fn consolidate_respects_blockers_and_budgets(c in cluster_strategy()) {
        let d = call(consolidate_json, &c);
        check_consolidate(&c, &d)?;
    }
}
