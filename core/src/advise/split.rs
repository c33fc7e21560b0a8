//! Splitting a NodePool: when pending pods of different GPU shapes land on one NodePool (1-GPU
//! eval pods beside 8-GPU training pods), Karpenter packs them together and may pick an instance
//! sized for the large pods. The workloads are not edited (no new toleration or selector): the
//! split adds a copy of the NodePool restricted by a node requirement (`instance-gpu-count` at
//! most some value) and weighted above every NodePool, so Karpenter tries it first; the large pods
//! do not fit its instances and still go to the original NodePool.

use super::candidates::{pool_docs, requirement, Candidate, GPU_COUNT};
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

/// The split candidates, NodePools in document order, smallest bound first.
pub fn generate(m: &Model, docs: &[Value], plan: &Plan, opt: &Optimization) -> Vec<Candidate> {
    let pools = pool_docs(docs);
    let top_weight = pools.iter().map(|p| p.weight).max().unwrap_or(0);
    if top_weight >= MAX_WEIGHT {
        return Vec::new();
    }
    let gpu_ids: Vec<_> = GPU_RESOURCES.iter().filter_map(|r| m.resources.get(r)).collect();
    if gpu_ids.is_empty() {
        return Vec::new();
    }
    // Keyed as the plan names pods: `namespace/name`.
    let gpus_of: BTreeMap<String, i64> = m
        .pods
        .iter()
        .map(|p| (format!("{}/{}", p.namespace, p.name), gpu_ids.iter().map(|&id| p.requests.get(id)).sum::<i64>() / 1000))
        .collect();
    let type_gpus = |name: &str| -> Option<i64> {
        let k = m.interner.get(GPU_COUNT)?;
        let t = m.catalog.types.iter().find(|t| t.name == name)?;
        m.interner.str(t.labels.get(k)?).parse().ok()
    };
    let names: BTreeSet<&str> = docs.iter().filter_map(|d| d.pointer("/metadata/name").and_then(Value::as_str)).collect();
    let mut out = Vec::new();
    for pool in &pools {
        // The GPU shapes of the pods Karpenter puts on new NodeClaims of this NodePool.
        let claims: Vec<_> = plan.node_claims.iter().filter(|c| c.node_pool == pool.name).collect();
        let shapes: BTreeSet<i64> = claims.iter().flat_map(|c| &c.pods).filter_map(|p| gpus_of.get(p).copied()).collect();
        let (Some(&small), Some(&large)) = (shapes.first(), shapes.last()) else { continue };
        if small == large || large == 0 {
            continue;
        }
        // A bound below Karpenter's largest instance only: otherwise the copy is the original.
        let Some(karpenter_top) = claims.iter().filter_map(|c| type_gpus(c.instance_type.as_deref()?)).max() else { continue };
        // Bounds: the smallest pods' GPU count, and each GPU count the optimum uses in this
        // NodePool that holds the small pods but not the largest ones.
        let mut bounds: BTreeSet<i64> = BTreeSet::from([small.max(1)]);
        for c in opt.node_claims.iter().filter(|c| !c.kept && c.node_pool == pool.name) {
            if let Some(g) = type_gpus(&c.instance_type) {
                if g >= small && g < large {
                    bounds.insert(g);
                }
            }
        }
        for bound in bounds.into_iter().filter(|&b| b < large && b < karpenter_top) {
            let name = format!("{}-upto-{bound}gpu", pool.name);
            if names.contains(name.as_str()) || name.len() > 63 {
                continue;
            }
            let copy = restricted_copy(&docs[pool.doc], &name, bound, top_weight + 1);
            out.push(Candidate {
                kind: "split",
                title: format!(
                    "split NodePool {}: add {name} ({GPU_COUNT} Lt {}, weight {}) for the pods of at most {bound} GPU(s)",
                    pool.name,
                    bound + 1,
                    top_weight + 1
                ),
                changes: vec![Change::AddNodePool { source: pool.doc, document: copy }],
            });
        }
    }
    out
}

/// The NodePool `source` renamed, weighted and bounded to `bound` GPUs per instance. Only the
/// metadata a user writes is kept (no uid, resourceVersion or status from a dumped cluster).
fn restricted_copy(source: &Value, name: &str, bound: i64, weight: i64) -> Value {
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
    let bound_req = requirement(GPU_COUNT, "Lt", vec![(bound + 1).to_string()]);
    if let Some(reqs) = doc.pointer_mut("/spec/template/spec/requirements").and_then(Value::as_array_mut) {
        reqs.retain(|r| !(r.get("key") == bound_req.get("key") && r.get("operator") == bound_req.get("operator")));
        reqs.push(bound_req);
    } else if let Some(spec) = doc.pointer_mut("/spec/template/spec").and_then(Value::as_object_mut) {
        spec.insert("requirements".into(), json!([bound_req]));
    }
    doc
}
