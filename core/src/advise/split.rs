//! Splitting a NodePool by GPU count, vCPUs or memory: when pending pods of different shapes land on one NodePool (1-GPU
//! eval pods beside 8-GPU training pods), Karpenter packs them together and may pick an instance
//! sized for the large pods. The workloads are not edited (no new toleration or selector): the
//! split adds a copy of the NodePool restricted by a node requirement (`instance-gpu-count`,
//! `instance-cpu` or `instance-memory` at most some value) and weighted above every NodePool, so Karpenter tries it first; the large pods
//! do not fit its instances and still go to the original NodePool.

use super::candidates::{pool_docs, requirement, Candidate, CPU, GPU_COUNT};
use super::Change;
use crate::api::Plan;
use crate::model::Model;
use crate::optimize::Optimization;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The GPU resources `instance-gpu-count` counts.
const GPU_RESOURCES: [&str; 2] = ["nvidia.com/gpu", "amd.com/gpu"];

/// Karpenter's NodePool weight is 1..=100.
const MAX_WEIGHT: i64 = 100;

/// `karpenter.k8s.aws/instance-memory`: the type's memory in MiB.
const MEMORY: &str = "karpenter.k8s.aws/instance-memory";

/// A shape a NodePool is split by: the node label that bounds it, what a pod needs of it (in
/// the label's unit), the suffix of the copy's name and the unit in its title.
struct Shape {
    key: &'static str,
    suffix: &'static str,
    unit: &'static str,
    /// The pod's own need, a bound of its own (a 1-GPU pod fits a 1-GPU type; a 3.5-vCPU
    /// pod needs more than a 4-vCPU type after overhead, so only the optimum's sizes count).
    own_bound: bool,
}

const SHAPES: [Shape; 3] = [
    Shape { key: GPU_COUNT, suffix: "gpu", unit: "GPU(s)", own_bound: true },
    Shape { key: CPU, suffix: "cpu", unit: "vCPU(s)", own_bound: false },
    Shape { key: MEMORY, suffix: "mib", unit: "MiB of memory", own_bound: false },
];

/// The split candidates, NodePools in document order, by GPU count then vCPUs then memory,
/// smallest bound first.
pub fn generate(m: &Model, docs: &[Value], plan: &Plan, opt: &Optimization) -> Vec<Candidate> {
    let pools = pool_docs(docs);
    let top_weight = pools.iter().map(|p| p.weight).max().unwrap_or(0);
    if top_weight >= MAX_WEIGHT {
        return Vec::new();
    }
    let gpu_ids: Vec<_> = GPU_RESOURCES.iter().filter_map(|r| m.resources.get(r)).collect();
    let (cpu_id, memory_id) = (m.resources.get("cpu"), m.resources.get("memory"));
    // What each pod needs per shape, keyed as the plan names pods (`namespace/name`): GPUs,
    // vCPUs (milli / 1000) and MiB (requests are in thousandths of a byte).
    let needs: BTreeMap<String, [f64; 3]> = m
        .pods
        .iter()
        .map(|p| {
            let gpus = gpu_ids.iter().map(|&id| p.requests.get(id)).sum::<i64>() / 1000;
            let cpu = cpu_id.map_or(0, |id| p.requests.get(id)) as f64 / 1000.0;
            let mib = memory_id.map_or(0, |id| p.requests.get(id)) as f64 / 1000.0 / 1_048_576.0;
            (format!("{}/{}", p.namespace, p.name), [gpus as f64, cpu, mib])
        })
        .collect();
    let type_value = |key: &str, name: &str| -> Option<i64> {
        let k = m.interner.get(key)?;
        let t = m.catalog.types.iter().find(|t| t.name == name)?;
        m.interner.str(t.labels.get(k)?).parse().ok()
    };
    let names: BTreeSet<&str> = docs.iter().filter_map(|d| d.pointer("/metadata/name").and_then(Value::as_str)).collect();
    let mut out = Vec::new();
    for pool in &pools {
        let claims: Vec<_> = plan.node_claims.iter().filter(|c| c.node_pool == pool.name).collect();
        for (d, shape) in SHAPES.iter().enumerate() {
            if d == 0 && gpu_ids.is_empty() {
                continue;
            }
            // The shapes of the pods Karpenter puts on new NodeClaims of this NodePool.
            let mut shapes: Vec<f64> = claims.iter().flat_map(|c| &c.pods).filter_map(|p| needs.get(p).map(|n| n[d])).collect();
            shapes.sort_by(f64::total_cmp);
            let (Some(&small), Some(&large)) = (shapes.first(), shapes.last()) else { continue };
            if small >= large || large <= 0.0 {
                continue;
            }
            // A bound below Karpenter's largest instance only: otherwise the copy is the original.
            let Some(karpenter_top) = claims.iter().filter_map(|c| type_value(shape.key, c.instance_type.as_deref()?)).max() else {
                continue;
            };
            // Bounds: (for GPUs) the smallest pods' count, and each size the optimum uses in
            // this NodePool that holds the small pods but not the largest ones.
            let mut bounds: BTreeSet<i64> = BTreeSet::new();
            if shape.own_bound {
                bounds.insert((small as i64).max(1));
            }
            for c in opt.node_claims.iter().filter(|c| !c.kept && c.node_pool == pool.name) {
                if let Some(v) = type_value(shape.key, &c.instance_type) {
                    if v as f64 >= small && (v as f64) < large {
                        bounds.insert(v);
                    }
                }
            }
            for bound in bounds.into_iter().filter(|&b| (b as f64) < large && b < karpenter_top) {
                let name = format!("{}-upto-{bound}{}", pool.name, shape.suffix);
                if names.contains(name.as_str()) || name.len() > 63 {
                    continue;
                }
                let copy = restricted_copy(&docs[pool.doc], &name, shape.key, bound, top_weight + 1);
                out.push(Candidate {
                    kind: "split",
                    title: format!(
                        "split NodePool {}: add {name} ({} Lt {}, weight {}) for the pods of at most {bound} {}",
                        pool.name,
                        shape.key,
                        bound + 1,
                        top_weight + 1,
                        shape.unit
                    ),
                    changes: vec![Change::AddNodePool { source: pool.doc, document: copy }],
                });
            }
        }
    }
    out
}

/// The NodePool `source` renamed, weighted and bounded to `bound` of `key` per instance. Only the
/// metadata a user writes is kept (no uid, resourceVersion or status from a dumped cluster).
fn restricted_copy(source: &Value, name: &str, key: &str, bound: i64, weight: i64) -> Value {
    let mut doc = source.clone();
    if let Value::Object(map) = &mut doc {
        map.remove("status");
        let mut meta = Map::new();
        meta.insert("name".into(), json!(name));
        for keep in ["labels", "annotations"] {
            if let Some(v) = source.pointer(&format!("/metadata/{keep}")) {
                meta.insert(keep.into(), v.clone());
            }
        }
        map.insert("metadata".into(), Value::Object(meta));
    }
    if let Some(spec) = doc.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("weight".into(), json!(weight));
    }
    let bound_req = requirement(key, "Lt", vec![(bound + 1).to_string()]);
    if let Some(reqs) = doc.pointer_mut("/spec/template/spec/requirements").and_then(Value::as_array_mut) {
        reqs.retain(|r| !(r.get("key") == bound_req.get("key") && r.get("operator") == bound_req.get("operator")));
        reqs.push(bound_req);
    } else if let Some(spec) = doc.pointer_mut("/spec/template/spec").and_then(Value::as_object_mut) {
        spec.insert("requirements".into(), json!([bound_req]));
    }
    doc
}
