//! The edits a platform engineer would try, derived from Karpenter's plan and the optimum: only
//! bounds and lists that separate the instance types Karpenter picks from the ones the optimum
//! picks, so the list stays short (at most [`super::MAX_CANDIDATES`]) and every entry has a reason.

use super::Change;
use crate::api::Plan;
use crate::edit;
use crate::model::Model;
use crate::optimize::Optimization;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(super) const GPU_COUNT: &str = "karpenter.k8s.aws/instance-gpu-count";
pub(super) const CPU: &str = "karpenter.k8s.aws/instance-cpu";
const SIZE: &str = "karpenter.k8s.aws/instance-size";
const FAMILY: &str = "karpenter.k8s.aws/instance-family";
const GENERATION: &str = "karpenter.k8s.aws/instance-generation";
const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";

/// One candidate: what kind of edit, a sentence, and the document changes.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub kind: &'static str,
    pub title: String,
    pub changes: Vec<Change>,
}

/// A NodePool document of the input: its index among the documents and its name.
#[derive(Debug, Clone)]
pub struct PoolDoc {
    pub doc: usize,
    pub name: String,
    pub weight: i64,
}

/// The NodePools (karpenter.sh) among `docs`, in document order.
pub fn pool_docs(docs: &[Value]) -> Vec<PoolDoc> {
    docs.iter()
        .enumerate()
        .filter(|(_, d)| {
            d.get("kind").and_then(Value::as_str) == Some("NodePool")
                && d.get("apiVersion").and_then(Value::as_str).is_some_and(|a| a.starts_with("karpenter.sh/"))
        })
        .filter_map(|(i, d)| {
            let name = d.pointer("/metadata/name")?.as_str()?.to_string();
            let weight = d.pointer("/spec/weight").and_then(Value::as_i64).unwrap_or(0);
            Some(PoolDoc { doc: i, name, weight })
        })
        .collect()
}

/// Instance-type labels of the catalog, by type name.
struct Labels<'a> {
    m: &'a Model,
    by_name: BTreeMap<&'a str, usize>,
}

impl<'a> Labels<'a> {
    fn new(m: &'a Model) -> Self {
        Labels { m, by_name: m.catalog.types.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect() }
    }
    fn get(&self, ty: &str, key: &str) -> Option<String> {
        let it = &self.m.catalog.types[*self.by_name.get(ty)?];
        let k = self.m.interner.get(key)?;
        it.labels.get(k).map(|v| self.m.interner.str(v).to_string())
    }
    fn int(&self, ty: &str, key: &str) -> Option<i64> {
        self.get(ty, key)?.parse().ok()
    }
    /// The label of every type, or None when one of them lacks it (a bound would then exclude it).
    fn all<T: Ord>(&self, types: &BTreeSet<String>, f: impl Fn(&str) -> Option<T>) -> Option<BTreeSet<T>> {
        types.iter().map(|t| f(t)).collect()
    }
}

pub(super) fn requirement(key: &str, operator: &str, values: Vec<String>) -> Value {
    json!({"key": key, "operator": operator, "values": values})
}

fn require(doc: usize, key: &str, operator: &str, values: Vec<String>) -> Change {
    Change::Require { doc, requirement: requirement(key, operator, values) }
}

fn set(doc: usize, path: &str, value: Value) -> Change {
    Change::Set { doc, path: edit::parse(path).expect("a fixed, valid path"), value }
}

fn list(values: &BTreeSet<String>) -> String {
    values.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// The candidates, simplest first within each NodePool, NodePools in document order.
pub fn generate(m: &Model, docs: &[Value], plan: &Plan, opt: &Optimization, limit: usize) -> Vec<Candidate> {
    let labels = Labels::new(m);
    let pools = pool_docs(docs);
    let mut karpenter: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in &plan.node_claims {
        if let Some(t) = &c.instance_type {
            karpenter.entry(c.node_pool.as_str()).or_default().insert(t.clone());
        }
    }
    let mut optimum: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in opt.node_claims.iter().filter(|c| !c.kept) {
        optimum.entry(c.node_pool.as_str()).or_default().insert(c.instance_type.clone());
    }
    let mut out = Vec::new();
    for pool in &pools {
        let (Some(k), Some(o)) = (karpenter.get(pool.name.as_str()), optimum.get(pool.name.as_str())) else { continue };
        let name = &pool.name;
        // Numeric upper bounds: each value the optimum uses that is below Karpenter's largest.
        for (key, what, kind) in [(GPU_COUNT, "GPU(s)", "gpu-count-bound"), (CPU, "vCPU(s)", "cpu-bound")] {
            let (Some(ks), Some(os)) = (labels.all(k, |t| labels.int(t, key)), labels.all(o, |t| labels.int(t, key))) else { continue };
            let top = ks.iter().max().copied().unwrap_or(0);
            for &v in os.iter().filter(|&&v| v < top) {
                out.push(Candidate {
                    kind,
                    title: format!("NodePool {name}: at most {v} {what} per instance ({key} Lt {})", v + 1),
                    changes: vec![require(pool.doc, key, "Lt", vec![(v + 1).to_string()])],
                });
            }
        }
        // Lists: what Karpenter picks and the optimum does not.
        for (key, what, kind) in [
            (SIZE, "sizes", "size-exclusion"),
            (FAMILY, "families", "family-exclusion"),
            (INSTANCE_TYPE, "instance types", "type-exclusion"),
        ] {
            let get = |t: &str| if key == INSTANCE_TYPE { Some(t.to_string()) } else { labels.get(t, key) };
            let (Some(ks), Some(os)) = (labels.all(k, get), labels.all(o, get)) else { continue };
            let extra: BTreeSet<String> = ks.difference(&os).cloned().collect();
            if !extra.is_empty() {
                out.push(Candidate {
                    kind,
                    title: format!("NodePool {name}: exclude the {what} {} ({key} NotIn)", list(&extra)),
                    changes: vec![require(pool.doc, key, "NotIn", extra.into_iter().collect())],
                });
            }
        }
        if let (Some(ks), Some(os)) = (labels.all(k, |t| labels.get(t, FAMILY)), labels.all(o, |t| labels.get(t, FAMILY))) {
            if ks != os {
                out.push(Candidate {
                    kind: "family-allow-list",
                    title: format!("NodePool {name}: only the families {} ({FAMILY} In)", list(&os)),
                    changes: vec![require(pool.doc, FAMILY, "In", os.into_iter().collect())],
                });
            }
        }
        if let (Some(ks), Some(os)) = (labels.all(k, |t| labels.int(t, GENERATION)), labels.all(o, |t| labels.int(t, GENERATION))) {
            let (lo_k, lo_o) = (ks.iter().min().copied().unwrap_or(0), os.iter().min().copied().unwrap_or(0));
            if lo_k < lo_o {
                out.push(Candidate {
                    kind: "generation-bound",
                    title: format!("NodePool {name}: generation {lo_o} or newer ({GENERATION} Gt {})", lo_o - 1),
                    changes: vec![require(pool.doc, GENERATION, "Gt", vec![(lo_o - 1).to_string()])],
                });
            }
        }
        if k != o {
            out.push(Candidate {
                kind: "type-allow-list",
                title: format!("NodePool {name}: only the optimum's instance types {} ({INSTANCE_TYPE} In)", list(o)),
                changes: vec![require(pool.doc, INSTANCE_TYPE, "In", o.iter().cloned().collect())],
            });
        }
    }
    // Spot: a NodePool that launched on-demand only, when its requirement allows changing it.
    for pool in &pools {
        let launched_on_demand =
            plan.node_claims.iter().any(|c| c.node_pool == pool.name && c.capacity_type.as_deref() == Some("on-demand"));
        let spot_launched = plan.node_claims.iter().any(|c| c.node_pool == pool.name && c.capacity_type.as_deref() == Some("spot"));
        if launched_on_demand && !spot_launched {
            out.push(Candidate {
                kind: "allow-spot",
                title: format!("NodePool {}: allow spot ({CAPACITY_TYPE} In spot, on-demand)", pool.name),
                changes: vec![set(
                    pool.doc,
                    &format!("spec.template.spec.requirements[key={CAPACITY_TYPE}]"),
                    requirement(CAPACITY_TYPE, "In", vec!["spot".into(), "on-demand".into()]),
                )],
            });
        }
    }
    // Weights: a NodePool the optimum uses for pods Karpenter put in another NodePool.
    let mut preferred: BTreeSet<&str> = BTreeSet::new();
    for mv in &opt.moved_pods {
        let pool_of = |s: &str| s.split_once(" (").and_then(|(_, r)| r.split(',').next()).map(str::trim).map(str::to_string);
        if let (Some(a), Some(b)) = (pool_of(&mv.karpenter), pool_of(&mv.optimum)) {
            if a != b {
                if let Some(p) = pools.iter().find(|p| p.name == b) {
                    preferred.insert(p.name.as_str());
                }
            }
        }
    }
    for pool in pools.iter().filter(|p| preferred.contains(p.name.as_str())) {
        let top = pools.iter().filter(|p| p.name != pool.name).map(|p| p.weight).max().unwrap_or(0);
        if pool.weight <= top && top < 100 {
            out.push(Candidate {
                kind: "weight",
                title: format!("NodePool {}: weight {} (above every other NodePool)", pool.name, top + 1),
                changes: vec![set(pool.doc, "spec.weight", json!(top + 1))],
            });
        }
    }
    out.truncate(limit);
    out
}
