//! The provisioning facade: request → model → one pass → plan.

use crate::api::*;
use crate::catalog;
use crate::diagnostics;
use crate::error::InputError;
use crate::manifest::{self, Document};
use crate::model::{lower, LimitKey, Model};
use crate::quantity::format_milli;
use crate::requirements::Without;
use crate::resources::{ResourceNames, Resources};
use crate::scheduling::{self, launch, Solution};
use crate::validate;
use indexmap::IndexMap;
use std::sync::Arc;

/// Decode every input and object of a request.
pub fn documents(req: &Request) -> Result<Vec<Document<'_>>, Vec<InputError>> {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for input in &req.inputs {
        match manifest::decode(&input.text, input.name.as_deref()) {
            Ok(d) => docs.extend(d),
            Err(e) => errors.extend(e),
        }
    }
    for (i, obj) in req.objects.iter().enumerate() {
        // Objects carry no source text; a List or an array among them expands like one in YAML.
        manifest::split(std::borrow::Cow::Borrowed(obj), Some("objects"), i, &mut docs, &mut errors);
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

/// Validation findings split by layer: admission errors make the input unusable; runtime
/// errors make Karpenter mark the NodePool not Ready, so it is skipped (R1.1.2).
pub fn validation(docs: &[Document]) -> (Vec<InputError>, Vec<InputError>) {
    let mut admission = Vec::new();
    let mut runtime = Vec::new();
    for d in docs {
        for mut e in validate::validate_document(d.index, &d.value, validate::Provider::Aws) {
            e.source = e.source.or_else(|| d.source.clone());
            if !d.prefix.is_empty() {
                e.path = Some(match e.path.take() {
                    Some(p) => format!("{}.{p}", d.prefix),
                    None => d.prefix.clone(),
                });
            }
            if is_runtime(&e) {
                runtime.push(e);
            } else {
                admission.push(e);
            }
        }
    }
    (admission, runtime)
}

/// Runtime-layer findings are marked in their help text by the validator.
fn is_runtime(e: &InputError) -> bool {
    e.help.as_deref().is_some_and(|h| h.starts_with("fails at runtime"))
}

/// Build the model of a request: decode, validate, lower.
pub fn model(req: &Request) -> Result<(Model, Vec<Warning>), Vec<InputError>> {
    let docs = documents(req)?;
    let (admission, runtime) = validation(&docs);
    if !admission.is_empty() {
        return Err(admission);
    }
    let (cat, tables) = catalog::build(req.catalog.as_ref())?;
    let mut model = lower::lower(&docs, cat, tables, req.settings.clone())?;
    let mut warnings = Vec::new();
    for e in runtime {
        let object = e.object.clone().unwrap_or_default();
        let help = e.help.as_deref().unwrap_or("");
        // A NodePool (or the EC2NodeClass it uses) that fails runtime validation is not Ready,
        // so provisioning ignores it (R1.1.2). An unparsable budget schedule keeps the NodePool
        // Ready; it only blocks disruption.
        let not_ready = if help.starts_with("fails at runtime (NodePool not Ready)") {
            object.strip_prefix("NodePool/").map(|n| (n.to_string(), false))
        } else if help.starts_with("fails at runtime (EC2NodeClass not Ready)") {
            object.strip_prefix("EC2NodeClass/").map(|n| (n.to_string(), true))
        } else {
            None
        };
        let mut consequence = "";
        if let Some((name, is_class)) = not_ready {
            for np in model.node_pools.iter_mut() {
                if (!is_class && np.name == name) || (is_class && np.node_class.as_deref() == Some(name.as_str())) {
                    np.ready = false;
                    consequence = "; Karpenter would not provision from the affected NodePool";
                }
            }
        }
        let at = e.path.clone().map(|p| format!(" (at {p})")).unwrap_or_default();
        warnings.push(Warning { code: e.code.clone(), message: format!("{}{at}{consequence}", e.message), object: Some(object) });
    }
    for (pool, e) in missing_node_classes(&model) {
        model.node_pools[pool].ready = false;
        let message = format!("{}; Karpenter would not provision from the affected NodePool", e.message);
        warnings.push(Warning { code: e.code, message, object: e.object });
    }
    check_bound_pods(&model)?;
    Ok((model, warnings))
}

/// NodePools whose `nodeClassRef` names an EC2NodeClass the input does not hold while it holds
/// others: Karpenter marks such a NodePool not Ready (its node class is not found) and never
/// launches from it. An input without any EC2NodeClass is read as "node classes not modelled"
/// (the conformance format's rule), and its NodePools stay Ready.
pub fn missing_node_classes(m: &Model) -> Vec<(usize, InputError)> {
    if m.node_classes.is_empty() {
        return Vec::new();
    }
    m.node_pools
        .iter()
        .enumerate()
        .filter(|(_, np)| np.node_class_index.is_none())
        .filter_map(|(i, np)| {
            let class = np.node_class.as_deref()?;
            let known: Vec<&str> = m.node_classes.iter().map(|c| c.name.as_str()).collect();
            let e = InputError::new(
                "node-class-not-found",
                format!("NodePool {:?} uses EC2NodeClass {class:?}, which is not in the input (it has {})", np.name, known.join(", ")),
            )
            .object(format!("NodePool/{}", np.name))
            .path("spec.template.spec.nodeClassRef.name")
            .help("fails at runtime (NodePool not Ready): add the EC2NodeClass or name one of the input's");
            Some((i, e))
        })
        .collect()
}

fn check_bound_pods(m: &Model) -> Result<(), Vec<InputError>> {
    let nodes: std::collections::HashSet<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    let errors: Vec<InputError> = m
        .pods
        .iter()
        .filter_map(|p| {
            let node = p.node_name.as_deref()?;
            (!nodes.contains(node)).then(|| {
                InputError::new("unknown-node", format!("pod {} is bound to node {node:?}, which is not in the input", p.key()))
                    .at_document(p.document)
                    .object(format!("Pod/{}/{}", p.namespace, p.name))
                    .path("spec.nodeName")
                    .help("include the Node (kubectl get nodes -o yaml) or remove spec.nodeName to treat the pod as pending")
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// `plan`: what one provisioning pass would do.
pub fn plan(req: &Request) -> Answer<Plan> {
    match model(req) {
        Err(errors) => Answer::failure("Plan", errors),
        Ok((m, warnings)) => {
            let sol = scheduling::solve(&m);
            Answer::success("Plan", render(&m, &sol, warnings))
        }
    }
}

/// Launch decisions for every claim; claims whose truncation breaks minValues fail their pods.
pub fn finalize(m: &Model, sol: &Solution) -> (Vec<launch::FinalClaim>, Vec<(usize, Reason)>) {
    let mut out = Vec::new();
    let mut failed = Vec::new();
    // Claims with the same template, candidates and requirements (but for the placeholder
    // hostname) get the same options and launch: tens of thousands of GPU claims come from a
    // few pod shapes, and sorting each one's candidates by price dominated rendering.
    let mut decided: crate::fxhash::FxHashMap<(usize, &[u32], Without), launch::Decision> = Default::default();
    for (c, pc) in sol.claims.iter().enumerate() {
        let t = &sol.templates[pc.template];
        let r = Without { reqs: &pc.requirements, skip: [m.keys.hostname; 4] };
        let decision = decided.entry((pc.template, &pc.its, r)).or_insert_with(|| launch::decide(&pc.its, &pc.requirements, m)).clone();
        match decision.map(|(options, l)| launch::finish(c, pc, t, options, l)) {
            Ok(f) => out.push(f),
            Err((key, min, found)) => {
                for &p in &pc.pods {
                    failed.push((
                        p,
                        Reason {
                            code: "min-values-not-met".into(),
                            node_pool: Some(m.node_pools[t.pool].name.clone()),
                            message: format!(
                                "the cheapest {} instance types offer {found} values of {} but minValues is {min}",
                                m.settings.max_instance_types,
                                m.interner.str(key)
                            ),
                        },
                    ));
                }
            }
        }
    }
    (out, failed)
}

pub fn render(m: &Model, sol: &Solution, warnings: Vec<Warning>) -> Plan {
    let (finals, truncation_failures) = finalize(m, sol);
    let mut plan = Plan { skipped: m.skipped.clone(), warnings, ..Default::default() };
    let mut per_pool: IndexMap<usize, usize> = IndexMap::new();
    let mut shared = Shared::default();
    for f in &finals {
        let pc = &sol.claims[f.claim];
        let pool = sol.templates[pc.template].pool;
        let n = per_pool.entry(pool).or_insert(0);
        *n += 1;
        plan.node_claims.push(claim_out(m, sol, f, format!("{}-{}", m.node_pools[pool].name, n), &mut shared));
    }
    plan.total_price_per_hour = round_price(plan.node_claims.iter().filter_map(|c| c.price_per_hour).sum());
    for e in &sol.existing {
        if e.pods.is_empty() {
            continue;
        }
        let n = &m.nodes[e.node];
        let mut pods: Vec<String> = e.pods.iter().map(|&p| m.pods[p].key()).collect();
        pods.sort();
        plan.existing_nodes.push(ExistingNodeOut {
            name: n.name.clone(),
            node_pool: n.nodepool.clone(),
            instance_type: n.instance_type.clone(),
            pods,
        });
    }
    plan.existing_nodes.sort_by(|a, b| a.name.cmp(&b.name));
    for (p, failure) in &sol.failures {
        plan.unschedulable.push(diagnostics::unschedulable(m, sol, *p, failure));
    }
    for (p, reason) in truncation_failures {
        plan.unschedulable.push(UnschedulableOut { pod: m.pods[p].key(), code: reason.code.clone(), reasons: vec![reason] });
    }
    plan.unschedulable.sort_by(|a, b| a.pod.cmp(&b.pod));
    plan.node_pools = pools_out(m, sol, &finals);
    plan
}

/// Prices are rounded to 1e-9 $/h so that sums print the same everywhere.
pub fn round_price(p: f64) -> f64 {
    // `+ 0.0` turns the -0.0 of an empty f64 sum into 0.0, so JSON never shows "-0.0".
    (p * 1e9).round() / 1e9 + 0.0
}

/// Output parts that many NodeClaims have in common, built once per render and shared: a
/// pass over 100,000 GPU pods makes ~50,000 claims on a few dozen (type, zone) launches, and
/// giving each its own copy of ~30 labels and up to 60 option names was most of the answer's
/// memory and of the render time.
#[derive(Default)]
struct Shared<'a> {
    options: crate::fxhash::FxHashMap<Vec<u32>, Arc<Vec<String>>>,
    /// (pool, custom requirement labels, launch (type, zone, capacity type)) → labels.
    labels: crate::fxhash::FxHashMap<LabelsKey, Arc<IndexMap<String, String>>>,
    requirements: crate::fxhash::FxHashMap<Without<'a>, Arc<Vec<String>>>,
    /// Rendered resource maps (requests, allocatable) by value.
    quantities: crate::fxhash::FxHashMap<Resources, Arc<IndexMap<String, String>>>,
    /// Utilization maps by (requests, allocatable).
    utilization: crate::fxhash::FxHashMap<(Resources, Resources), Arc<IndexMap<String, f64>>>,
}

impl Shared<'_> {
    fn quantities(&mut self, names: &ResourceNames, v: &Resources) -> Arc<IndexMap<String, String>> {
        if let Some(q) = self.quantities.get(v) {
            return q.clone();
        }
        let q = Arc::new(names.render(v));
        self.quantities.insert(v.clone(), q.clone());
        q
    }
}

type LabelsKey = (usize, Vec<(String, String)>, Option<(u32, crate::labels::ValueId, crate::labels::ValueId)>);

fn claim_out<'a>(m: &Model, sol: &'a Solution, f: &launch::FinalClaim, name: String, shared: &mut Shared<'a>) -> NodeClaimOut {
    let pc = &sol.claims[f.claim];
    let t = &sol.templates[pc.template];
    let np = &m.node_pools[t.pool];
    let names = &m.resources;
    let mut pods: Vec<String> = pc.pods.iter().map(|&p| m.pods[p].key()).collect();
    pods.sort();
    // Custom requirement keys get a concrete value (R5.20.5).
    let mut custom: Vec<(String, String)> = Vec::new();
    for (k, r) in pc.requirements.iter() {
        let key = m.interner.str(k);
        if k == m.keys.hostname
            || m.is_well_known(k)
            || crate::labels::is_restricted(key)
            || key.starts_with("karpenter.sh/")
            || np.labels.iter().any(|(l, _)| m.interner.str(l) == key)
            || custom.iter().any(|(c, _)| c == key)
        {
            continue;
        }
        if let Some(v) = r.any_value(&m.interner) {
            custom.push((key.to_string(), v));
        }
    }
    let launched = f.launch.as_ref().map(|l| (l.it, l.zone, l.capacity_type));
    let labels = shared
        .labels
        .entry((t.pool, custom, launched))
        .or_insert_with_key(|(_, custom, _)| {
            let mut labels: IndexMap<String, String> = IndexMap::new();
            for (k, v) in np.labels.iter() {
                labels.insert(m.interner.str(k).to_string(), m.interner.str(v).to_string());
            }
            for (k, v) in custom {
                labels.insert(k.clone(), v.clone());
            }
            if let Some(l) = &f.launch {
                let it = &m.catalog.types[l.it as usize];
                for (k, v) in it.labels.iter() {
                    labels.insert(m.interner.str(k).to_string(), m.interner.str(v).to_string());
                }
                labels.insert(crate::labels::ZONE.into(), m.interner.str(l.zone).to_string());
                labels.insert(crate::labels::CAPACITY_TYPE.into(), m.interner.str(l.capacity_type).to_string());
            }
            labels.sort_keys();
            Arc::new(labels)
        })
        .clone();
    let mut allocatable = Resources::new();
    let (mut instance_type, mut capacity_type, mut zone, mut price) = (None, None, None, None);
    if let Some(l) = &f.launch {
        let it = &m.catalog.types[l.it as usize];
        instance_type = Some(it.name.clone());
        capacity_type = Some(m.interner.str(l.capacity_type).to_string());
        zone = Some(m.interner.str(l.zone).to_string());
        price = Some(round_price(l.price));
        allocatable = t.alloc(l.it, m).clone();
    }
    let utilization = match shared.utilization.get(&(f.requests.clone(), allocatable.clone())) {
        Some(u) => u.clone(),
        None => {
            let u = Arc::new(utilization(names, &f.requests, &allocatable));
            shared.utilization.insert((f.requests.clone(), allocatable.clone()), u.clone());
            u
        }
    };
    let written = Without { reqs: &pc.requirements, skip: [m.keys.hostname, m.keys.registered, m.keys.initialized, m.keys.instance_type] };
    let requirements = shared
        .requirements
        .entry(written)
        .or_insert_with_key(|r| {
            let lines: std::collections::BTreeSet<String> =
                r.iter().map(|(k, r)| format!("{} {}", m.interner.str(k), r.render(&m.interner))).collect();
            Arc::new(lines.into_iter().collect())
        })
        .clone();
    let instance_type_options = match shared.options.get(&f.options) {
        Some(o) => o.clone(),
        None => {
            let o = Arc::new(f.options.iter().map(|&i| m.catalog.types[i as usize].name.clone()).collect::<Vec<_>>());
            shared.options.insert(f.options.clone(), o.clone());
            o
        }
    };
    NodeClaimOut {
        name,
        node_pool: np.name.clone(),
        instance_type,
        capacity_type,
        zone,
        price_per_hour: price,
        instance_type_options,
        pods,
        daemon_sets: f.daemons.iter().map(|&d| format!("{}/{}", m.daemonsets[d].namespace, m.daemonsets[d].name)).collect(),
        requests: shared.quantities(names, &f.requests),
        allocatable: shared.quantities(names, &allocatable),
        utilization,
        labels,
        requirements,
        ties: ties_out(m, pc),
    }
}

/// The NodeClaim's choices that Karpenter makes in Go map order (see `DomainTieOut`).
fn ties_out(m: &Model, pc: &crate::scheduling::claim::PlannedClaim) -> Vec<crate::api::DomainTieOut> {
    pc.ties
        .iter()
        .map(|(key, values)| {
            let name = |v: &crate::labels::ValueId| m.interner.str(*v).to_string();
            let mut candidates: Vec<String> = values.iter().map(name).collect();
            candidates.sort();
            let value = pc
                .requirements
                .get(*key)
                .and_then(crate::scheduling::topology::single)
                .map(|v| name(&v))
                .unwrap_or_else(|| candidates[0].clone());
            let key = m.interner.str(*key).to_string();
            let what = match key.as_str() {
                "topology.kubernetes.io/zone" => "zone".to_string(),
                "karpenter.sh/capacity-type" => "capacity type".to_string(),
                other => other.to_string(),
            };
            let message = format!(
                "the {what} is a tie among {} in Karpenter (Go map order decides, reruns differ); nodecast shows {value}",
                candidates.join(", ")
            );
            crate::api::DomainTieOut { key, value, candidates, message }
        })
        .collect()
}

fn utilization(names: &ResourceNames, req: &Resources, alloc: &Resources) -> IndexMap<String, f64> {
    alloc
        .iter_nonzero()
        .filter(|(id, _)| req.get(*id) > 0)
        .map(|(id, a)| (names.name(id).to_string(), ((req.get(id) as f64 / a as f64) * 1e4).round() / 1e4))
        .collect()
}

fn pools_out(m: &Model, sol: &Solution, finals: &[launch::FinalClaim]) -> Vec<NodePoolOut> {
    let mut out = Vec::new();
    for p in m.pool_order() {
        let np = &m.node_pools[p];
        let mine: Vec<&launch::FinalClaim> = finals.iter().filter(|f| sol.templates[sol.claims[f.claim].template].pool == p).collect();
        let mut limits = IndexMap::new();
        for (k, limit) in &np.limits {
            let (name, unit) = match k {
                LimitKey::Nodes => ("nodes".to_string(), crate::quantity::Unit::Decimal),
                LimitKey::Resource(r) => (m.resources.name(*r).to_string(), m.resources.unit(*r)),
            };
            let existing: i64 = m
                .nodes
                .iter()
                .filter(|n| n.nodepool.as_deref() == Some(np.name.as_str()) && !n.marked_for_deletion)
                .map(|n| match k {
                    LimitKey::Nodes => 1000,
                    LimitKey::Resource(r) => n.capacity.get(*r),
                })
                .sum();
            let launched: i64 = mine
                .iter()
                .filter_map(|f| f.launch.as_ref())
                .map(|l| match k {
                    LimitKey::Nodes => 1000,
                    LimitKey::Resource(r) => m.catalog.types[l.it as usize].capacity.get(*r),
                })
                .sum();
            let used = existing + launched;
            limits.insert(
                name,
                LimitOut {
                    limit: format_milli(*limit, unit),
                    used: format_milli(used, unit),
                    remaining: format_milli(*limit - used, unit),
                },
            );
        }
        out.push(NodePoolOut { name: np.name.clone(), weight: np.weight, new_node_claims: mine.len(), limits });
    }
    out
}
