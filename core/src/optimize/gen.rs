//! A seeded random GPU cluster for tests and benchmarks of `optimize`: a small GPU catalog
//! whose price per GPU is not linear in size (as on EC2: the big nodes carry more CPU and
//! memory), one or two NodePools (on-demand; spot allowed in one), and a few Deployments of
//! 1/2/4-GPU pods with CPU and memory requests.

use serde_json::{json, Value};

/// (name, GPUs, vCPU, memory GiB, on-demand $/h).
const TYPES: [(&str, i64, i64, i64, f64); 6] = [
    ("gpu-1x", 1, 4, 16, 1.00),
    ("gpu-1x-big", 1, 16, 64, 1.60),
    ("gpu-2x", 2, 16, 64, 2.10),
    ("gpu-4x", 4, 48, 192, 4.40),
    ("gpu-8x", 8, 96, 768, 9.80),
    ("cpu-only", 0, 8, 32, 0.40),
];

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The catalog of the generator (two zones, spot at 35 % of on-demand).
pub fn catalog() -> Value {
    let types: Vec<Value> = TYPES
        .iter()
        .map(|(name, gpu, cpu, mem, price)| {
            let mut alloc = json!({"cpu": format!("{}m", cpu * 1000 - 100), "memory": format!("{}Mi", mem * 1024 - 512), "pods": "110"});
            if *gpu > 0 {
                alloc["nvidia.com/gpu"] = json!(gpu.to_string());
            }
            json!({"name": name, "allocatable": alloc, "onDemandPrice": price, "spotPrice": (price * 0.35 * 1e4).round() / 1e4})
        })
        .collect();
    json!({"zones": ["zone-a", "zone-b"], "instanceTypes": types})
}

/// A random cluster of at most `max_pods` pending pods (objects for a request's `objects`).
pub fn cluster(seed: u64, max_pods: usize) -> Vec<Value> {
    let mut r = Lcg(seed.wrapping_mul(0x9E3779B97F4A7C15).wrapping_add(7));
    let mut objects = Vec::new();
    let pools = 1 + r.below(2);
    for p in 0..pools {
        let capacity: Vec<&str> = if p == 1 { vec!["spot", "on-demand"] } else { vec!["on-demand"] };
        let mut spec = json!({"template": {"metadata": {"labels": {"pool": format!("p{p}")}}, "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": capacity}]}}});
        if r.below(3) == 0 {
            spec["limits"] = json!({"nvidia.com/gpu": (8 + 8 * r.below(3)).to_string()});
        }
        objects.push(json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": format!("pool-{p}")}, "spec": spec}));
    }
    let workloads = 1 + r.below(4) as usize;
    let mut left = max_pods.max(1);
    for w in 0..workloads {
        if left == 0 {
            break;
        }
        // Small inputs draw up to 12 replicas per workload; large ones spread the pods evenly.
        let cap = (left as u64).min(12.max(max_pods as u64 / workloads as u64));
        let replicas = if w + 1 == workloads && max_pods > 48 { left } else { (1 + r.below(cap)) as usize };
        left -= replicas;
        let gpu = [1, 1, 2, 4][r.below(4) as usize];
        let cpu = [500, 2000, 3500, 6000, 11000][r.below(5) as usize] * gpu;
        let mem = [2, 8, 14, 30][r.below(4) as usize] * gpu;
        let mut pod_spec = json!({"containers": [{"name": "main", "image": "trainer",
            "resources": {"requests": {"cpu": format!("{cpu}m"), "memory": format!("{mem}Gi")},
                          "limits": {"nvidia.com/gpu": gpu.to_string()}}}]});
        if pools > 1 && r.below(3) == 0 {
            pod_spec["nodeSelector"] = json!({"pool": format!("p{}", r.below(pools))});
        }
        objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": format!("w{w}"), "namespace": "ml"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": format!("w{w}")}},
                     "template": {"metadata": {"labels": {"app": format!("w{w}")}}, "spec": pod_spec}}}));
    }
    objects
}

/// [`cluster`] with hostname rules on its Deployments: some replicas one per node (anti-affinity
/// on their own label), some repelling another workload, some with a hostname spread (maxSkew
/// 1–3, DoNotSchedule or ScheduleAnyway) counting their own or another workload's pods.
pub fn constrained_cluster(seed: u64, max_pods: usize) -> Vec<Value> {
    let mut objects = cluster(seed, max_pods);
    let mut r = Lcg(seed.wrapping_mul(0xD1B54A32D192ED03).wrapping_add(11));
    let workloads = objects.iter().filter(|o| o["kind"] == "Deployment").count() as u64;
    for o in objects.iter_mut().filter(|o| o["kind"] == "Deployment") {
        let app = |w: u64| json!({"matchLabels": {"app": format!("w{w}")}});
        let own = o["metadata"]["name"].as_str().unwrap_or("w0").trim_start_matches('w').parse::<u64>().unwrap_or(0);
        let spec = &mut o["spec"]["template"]["spec"];
        let other = r.below(workloads);
        match r.below(5) {
            0 => {
                spec["affinity"] = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": app(own)}]}});
            }
            1 => {
                spec["affinity"] = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": app(other)}]}});
            }
            2 | 3 => {
                let when = if r.below(2) == 0 { "DoNotSchedule" } else { "ScheduleAnyway" };
                let target = if r.below(2) == 0 { own } else { other };
                spec["topologySpreadConstraints"] = json!([{"maxSkew": 1 + r.below(3), "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": when, "labelSelector": app(target)}]);
            }
            _ => {}
        }
    }
    objects
}

/// [`constrained_cluster`] with zone rules too: some Deployments spread over the zones (maxSkew
/// 1–2, sometimes minDomains 3, DoNotSchedule or ScheduleAnyway, over their own pods), some
/// repel their own replicas or another workload's pods per zone.
pub fn zoned_cluster(seed: u64, max_pods: usize) -> Vec<Value> {
    let mut objects = constrained_cluster(seed, max_pods);
    let mut r = Lcg(seed.wrapping_mul(0xA24BAED4963EE407).wrapping_add(5));
    let workloads = objects.iter().filter(|o| o["kind"] == "Deployment").count() as u64;
    for o in objects.iter_mut().filter(|o| o["kind"] == "Deployment") {
        let own = o["metadata"]["name"].as_str().unwrap_or("w0").trim_start_matches('w').parse::<u64>().unwrap_or(0);
        let other = r.below(workloads);
        let spec = &mut o["spec"]["template"]["spec"];
        let zone = "topology.kubernetes.io/zone";
        match r.below(4) {
            0 | 1 => {
                let when = if r.below(3) == 0 { "ScheduleAnyway" } else { "DoNotSchedule" };
                let mut sc = json!({"maxSkew": 1 + r.below(2), "topologyKey": zone, "whenUnsatisfiable": when,
                    "labelSelector": {"matchLabels": {"app": format!("w{own}")}}});
                if r.below(4) == 0 && when == "DoNotSchedule" {
                    sc["minDomains"] = json!(3);
                }
                match spec["topologySpreadConstraints"].as_array_mut() {
                    Some(list) => list.push(sc),
                    None => spec["topologySpreadConstraints"] = json!([sc]),
                }
            }
            2 => {
                let target = if r.below(2) == 0 { own } else { other };
                let term = json!({"topologyKey": zone, "labelSelector": {"matchLabels": {"app": format!("w{target}")}}});
                let anti = &mut spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
                match anti.as_array_mut() {
                    Some(list) => list.push(term),
                    None => *anti = json!([term]),
                }
            }
            _ => {}
        }
    }
    objects
}

/// [`zoned_cluster`] with required pod affinity too: some Deployments must run beside a pod of
/// their own or another workload on the node (hostname) or in the zone.
pub fn affine_cluster(seed: u64, max_pods: usize) -> Vec<Value> {
    let mut objects = zoned_cluster(seed, max_pods);
    let mut r = Lcg(seed.wrapping_mul(0x9E3779B97F4A7C15).wrapping_add(17));
    let workloads = objects.iter().filter(|o| o["kind"] == "Deployment").count() as u64;
    for o in objects.iter_mut().filter(|o| o["kind"] == "Deployment") {
        let own = o["metadata"]["name"].as_str().unwrap_or("w0").trim_start_matches('w').parse::<u64>().unwrap_or(0);
        let other = r.below(workloads);
        let key = match r.below(3) {
            0 => "kubernetes.io/hostname",
            1 => "topology.kubernetes.io/zone",
            _ => continue,
        };
        let target = if r.below(3) == 0 { own } else { other };
        let term = json!({"topologyKey": key, "labelSelector": {"matchLabels": {"app": format!("w{target}")}}});
        let terms = &mut o["spec"]["template"]["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
        *terms = json!([term]);
    }
    objects
}
