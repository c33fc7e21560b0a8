//! Small clusters decoded from fuzz bytes: every byte picks among a few meaningful choices, so
//! libFuzzer's mutations walk through NodePools, pods, workloads, nodes and inline catalogs
//! (including wrong and extreme values) instead of mostly producing YAML syntax errors.
//!
//! Depends only on std and serde_json (core/tests/fuzz_corpus.rs includes this file by path).

use serde_json::{json, Value};

/// Reads choices from the fuzz input; past its end every choice is 0 (the first option).
pub struct Src<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Src<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Src { data, pos: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// 0..n (n ≥ 1).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    pub fn pick<T: Copy>(&mut self, options: &[T]) -> T {
        options[self.below(options.len())]
    }

    pub fn chance(&mut self, in_256: u8) -> bool {
        self.byte() < in_256
    }

    /// Like [`Src::chance`], but false past the input's end: for choices added after inputs
    /// were kept, so those inputs still decode as they did.
    pub fn maybe(&mut self, in_256: u8) -> bool {
        self.byte() > 255 - in_256
    }

    /// The unread rest, as (lossy) text.
    pub fn rest_text(&mut self) -> String {
        let start = self.pos.min(self.data.len());
        self.pos = self.data.len();
        String::from_utf8_lossy(&self.data[start..]).into_owned()
    }
}

const TYPE_NAMES: &[&str] = &["t-2", "t-4", "t-8", "g-1", "g-8"];
const CPUS: &[&str] = &["1900m", "3900m", "7900m", "15", "96", "0", "1e3", "9223372036854775807m"];
const MEMS: &[&str] = &["4Gi", "16Gi", "64Gi", "512Mi", "1Ti", "0"];
const GPUS: &[&str] = &["0", "1", "4", "8"];
const ZONES: &[&str] = &["z-a", "z-b", "z-c"];
const POOL_NAMES: &[&str] = &["default", "gpu", "spot", "default"];
const LABEL_KEYS: &[&str] = &[
    "topology.kubernetes.io/zone",
    "karpenter.sh/capacity-type",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "example.com/team",
    "example.com/gpus",
    "karpenter.sh/nodepool",
    "kubernetes.io/hostname",
];
const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte", "In", "Bogus"];
const VALUES: &[&str] = &[
    "z-a",
    "z-b",
    "on-demand",
    "spot",
    "t-4",
    "g-8",
    "amd64",
    "arm64",
    "ml",
    "0",
    "1",
    "4",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "",
];
const REQUESTS: &[&str] = &["0", "100m", "500m", "1", "2", "3500m", "7", "16", "1e-9", "1Ei", "-1", "abc"];
const TAINT_KEYS: &[&str] = &["nvidia.com/gpu", "dedicated", "example.com/x"];
const EFFECTS: &[&str] = &["NoSchedule", "NoExecute", "PreferNoSchedule", "Sometimes"];
const APPS: &[&str] = &["web", "db", "train"];

fn price(src: &mut Src) -> Value {
    match src.below(10) {
        0 => json!(0.0),
        1 => json!(1e9),
        2 => json!(2e9),
        3 => json!(-0.5),
        4 => json!("NaN"),
        5 => json!("inf"),
        6 => json!(f64::MAX),
        _ => json!(0.05 * f64::from(src.below(40) as u8 + 1)),
    }
}

/// An inline catalog of 1..4 instance types (occasionally with bad prices or duplicate names).
pub fn catalog(src: &mut Src) -> Value {
    let n = 1 + src.below(4);
    let mut types = Vec::new();
    for i in 0..n {
        let name = if src.chance(16) { TYPE_NAMES[0] } else { TYPE_NAMES[(i + src.below(2)) % TYPE_NAMES.len()] };
        let mut alloc = json!({"cpu": src.pick(CPUS), "memory": src.pick(MEMS), "pods": src.pick(&["8", "110", "0"])});
        if name.starts_with('g') {
            alloc["nvidia.com/gpu"] = json!(src.pick(GPUS));
        }
        let mut t = json!({"name": name, "allocatable": alloc, "onDemandPrice": price(src),
            "labels": {"kubernetes.io/arch": src.pick(&["amd64", "arm64"]), "example.com/gpus": src.pick(GPUS)}});
        if src.chance(40) {
            t["spotPrice"] = price(src);
        }
        types.push(t);
    }
    let mut c = json!({"instanceTypes": types, "zones": &ZONES[..1 + src.below(3)]});
    if src.chance(64) {
        c["capacityTypes"] = json!(["on-demand"]);
    }
    if src.chance(32) {
        c["spotPriceFactor"] = match src.below(4) {
            0 => json!(0.3),
            1 => json!(-1),
            2 => json!(1e300),
            _ => json!("NaN"),
        };
    }
    c
}

fn requirement(src: &mut Src) -> Value {
    let key = src.pick(LABEL_KEYS);
    let op = src.pick(OPERATORS);
    let values: Vec<&str> = (0..src.below(3)).map(|_| src.pick(VALUES)).collect();
    let mut r = json!({"key": key, "operator": op, "values": values});
    if src.chance(16) {
        r["minValues"] = json!(src.pick(&[1, 2, 0, -1, 51]));
    }
    r
}

fn node_pool(src: &mut Src) -> Value {
    let name = src.pick(POOL_NAMES);
    let reqs: Vec<Value> = (0..src.below(4)).map(|_| requirement(src)).collect();
    let taints: Vec<Value> =
        (0..src.below(3).saturating_sub(1)).map(|_| json!({"key": src.pick(TAINT_KEYS), "effect": src.pick(EFFECTS)})).collect();
    let mut spec = json!({
        "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                              "requirements": reqs, "taints": taints}},
        "disruption": {"consolidationPolicy": src.pick(&["WhenEmptyOrUnderutilized", "WhenEmpty", "Never"]),
                       "consolidateAfter": src.pick(&["0s", "30s", "Never", "-5s"]),
                       "budgets": [{"nodes": src.pick(&["10%", "1", "0", "100%", "200%", "x"])}]}
    });
    if src.chance(100) {
        spec["weight"] = json!(src.pick(&[1i64, 10, 100, 0, 101, -1, i64::MAX]));
    }
    if src.chance(80) {
        spec["limits"] = json!({"cpu": src.pick(&["0", "4", "16", "1000", "-1"]), "nvidia.com/gpu": src.pick(&["1", "8", "100"])});
    }
    json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec})
}

fn pod_spec(src: &mut Src, app: &str) -> Value {
    let mut requests = json!({"cpu": src.pick(REQUESTS), "memory": src.pick(&["128Mi", "1Gi", "8Gi", "0"])});
    if src.chance(48) {
        requests["nvidia.com/gpu"] = json!(src.pick(&["1", "2", "8"]));
    }
    let mut spec = json!({"containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}]});
    if src.chance(64) {
        spec["nodeSelector"] = json!({src.pick(LABEL_KEYS): src.pick(VALUES)});
    }
    if src.chance(64) {
        spec["tolerations"] =
            json!([{"key": src.pick(TAINT_KEYS), "operator": src.pick(&["Exists", "Equal", "Maybe"]), "effect": src.pick(EFFECTS)}]);
    }
    let mut affinity = json!({});
    if src.chance(64) {
        let terms: Vec<Value> = (0..1 + src.below(2)).map(|_| json!({"matchExpressions": [requirement(src)]})).collect();
        affinity["nodeAffinity"] = json!({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}});
        if src.chance(128) {
            affinity["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
                json!([{"weight": src.pick(&[1, 50, 100, 0]), "preference": {"matchExpressions": [requirement(src)]}}]);
        }
    }
    if src.chance(48) {
        let kind = if src.chance(128) { "podAntiAffinity" } else { "podAffinity" };
        affinity[kind] = json!({"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": src.pick(APPS)}},
            "topologyKey": src.pick(&["kubernetes.io/hostname", "topology.kubernetes.io/zone", "example.com/team"])}]});
    }
    if affinity.as_object().is_some_and(|m| !m.is_empty()) {
        spec["affinity"] = affinity;
    }
    if src.chance(48) {
        spec["topologySpreadConstraints"] = json!([{"maxSkew": src.pick(&[1, 2, 0]),
            "topologyKey": src.pick(&["topology.kubernetes.io/zone", "kubernetes.io/hostname", "karpenter.sh/capacity-type"]),
            "whenUnsatisfiable": src.pick(&["DoNotSchedule", "ScheduleAnyway"]),
            "labelSelector": {"matchLabels": {"app": app}}}]);
    }
    spec
}

fn meta(src: &mut Src, name: String, app: &str) -> Value {
    let mut m = json!({"name": name, "namespace": src.pick(&["default", "default", "ml"]), "labels": {"app": app}});
    if src.chance(24) {
        m["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
    }
    m
}

/// Pending pods and workloads: bare Pods, Deployments, Jobs.
pub fn workloads(src: &mut Src, out: &mut Vec<Value>) {
    for i in 0..src.below(6) {
        let app = src.pick(APPS);
        match src.below(4) {
            0 | 1 => {
                let n = src.pick(&[i, i, 0]);
                let m = meta(src, format!("p-{n}"), app);
                out.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": pod_spec(src, app)}));
            }
            2 => {
                let replicas = src.pick(&[0i64, 1, 3, 7, -1]);
                let m = meta(src, format!("d-{i}"), app);
                let spec = pod_spec(src, app);
                out.push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": m,
                    "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                             "template": {"metadata": {"labels": {"app": app}}, "spec": spec}}}));
            }
            _ => {
                let m = meta(src, format!("j-{i}"), app);
                let spec = pod_spec(src, app);
                out.push(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": m,
                    "spec": {"parallelism": src.pick(&[1, 2, 4]), "completions": src.pick(&[1, 4]),
                             "template": {"metadata": {"labels": {"app": app}}, "spec": spec}}}));
            }
        }
    }
    if src.chance(40) {
        out.push(json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}},
                "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "a", "resources": {"requests": {"cpu": src.pick(REQUESTS)}}}]}}}}));
    }
}

/// Existing nodes (managed or not) with pods bound to them.
fn nodes(src: &mut Src, out: &mut Vec<Value>) {
    for i in 0..src.below(4) {
        let name = format!("node-{}", src.pick(&[i, i, i, 0]));
        let ty = src.pick(TYPE_NAMES);
        let mut labels = json!({"node.kubernetes.io/instance-type": ty, "topology.kubernetes.io/zone": src.pick(ZONES),
            "karpenter.sh/capacity-type": src.pick(&["on-demand", "spot"]), "kubernetes.io/hostname": name});
        if src.chance(200) {
            labels["karpenter.sh/nodepool"] = json!(src.pick(POOL_NAMES));
        }
        let mut m = json!({"name": name, "labels": labels,
            "creationTimestamp": src.pick(&["2026-11-20T00:00:00Z", "2026-11-25T11:59:00Z", "not a time"])});
        if src.chance(24) {
            m["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
        }
        let mut node = json!({"apiVersion": "v1", "kind": "Node", "metadata": m,
            "status": {"allocatable": {"cpu": src.pick(CPUS), "memory": src.pick(MEMS), "pods": "110"}}});
        if src.chance(32) {
            node["spec"] = json!({"taints": [{"key": src.pick(TAINT_KEYS), "effect": src.pick(EFFECTS)}]});
        }
        out.push(node);
        for j in 0..src.below(4) {
            let app = src.pick(APPS);
            let m = meta(src, format!("r-{i}-{j}"), app);
            let mut spec = pod_spec(src, app);
            spec["nodeName"] = json!(name);
            let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec});
            if src.chance(48) {
                pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": src.pick(&["ReplicaSet", "DaemonSet", "Node", "Pod"]),
                    "name": src.pick(&["rs", "node-0", "r-0-0"]), "uid": "u", "controller": true}]);
            }
            out.push(pod);
        }
        if src.chance(32) {
            let field = src.pick(&["maxUnavailable", "minAvailable"]);
            let value = [json!(0), json!(1), json!("50%"), json!("x")][src.below(4)].clone();
            out.push(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": format!("pdb-{i}")},
                "spec": {field: value,
                         "selector": {"matchLabels": {"app": src.pick(APPS)}}}}));
        }
    }
}

/// A whole cluster: (objects, inline catalog).
pub fn cluster(src: &mut Src, with_nodes: bool) -> (Vec<Value>, Value) {
    let catalog = catalog(src);
    let mut objects = Vec::new();
    for _ in 0..1 + src.below(3) {
        objects.push(node_pool(src));
    }
    if with_nodes {
        nodes(src, &mut objects);
    }
    workloads(src, &mut objects);
    (objects, catalog)
}

/// Objects as one multi-document YAML text (each document in JSON flow style, which is YAML).
pub fn to_yaml(objects: &[Value]) -> String {
    let mut s = String::new();
    for o in objects {
        s.push_str("---\n");
        s.push_str(&o.to_string());
        s.push('\n');
    }
    s
}
