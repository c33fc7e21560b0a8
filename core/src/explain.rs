//! `validate` and `explain`: the answers that say *why*.

use crate::api::*;
use crate::diagnostics::{self, compatible_types, pod_requirements};
use crate::error::InputError;
use crate::load::{self, Sources};
use crate::model::Model;
use crate::provision;
use crate::requirements::Incompatible;
use crate::scheduling::{self, existing, it_labels_compatible, launch, offering_compatible, Placement};
use crate::taints::first_untolerated;
use crate::vocab::{PodOutcome, ReservationChange, TypeVerdict};
use serde::Serialize;

/// The answer of `validate` when the input is valid: what was loaded.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationReport {
    /// How many YAML/JSON documents (objects) the inputs held.
    pub objects: usize,
    /// The NodePools found, by name.
    pub node_pools: Vec<String>,
    /// How many pods (and workload-expanded pods) the model holds.
    pub pods: usize,
    /// Objects recognised but not modelled (kind/name and why).
    pub skipped: Vec<crate::model::Skipped>,
    /// Valid objects that will not work as meant: a NodePool that can never launch anything
    /// (`nodepool-launches-nothing`), and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// Run every validation rule (both layers) and every decoding/lowering check.
pub fn validate(req: &Sources) -> Result<ValidationReport, Vec<InputError>> {
    // Streamed as `plan` loads (each document decoded, validated, lowered and dropped before
    // the next: 20,000 pods' decoded trees are never all in memory); inputs the stream does not
    // take are decoded whole, with the same findings.
    match load::validation_streamed(req) {
        Some((objects, errors, notes, lowered)) => report(objects, errors, notes, Ok(lowered)),
        None => validate_whole(req),
    }
}

/// [`validate`] with every input decoded whole first.
fn validate_whole(req: &Sources) -> Result<ValidationReport, Vec<InputError>> {
    let docs = load::documents(req)?;
    let (mut errors, runtime, notes) = load::validation(&docs);
    errors.extend(runtime);
    let lowered = crate::catalog::build(req.catalog).map(|(cat, tables)| crate::lower::lower(&docs, cat, tables, req.settings.clone()));
    report(docs.len(), errors, notes, lowered)
}

/// The report of `objects` documents from the validator's `errors` and `notes` (warnings) and
/// what lowering made of them (the outer error: the catalog was refused).
fn report(
    objects: usize,
    mut errors: Vec<InputError>,
    notes: Vec<Warning>,
    lowered: Result<Result<Model, Vec<InputError>>, Vec<InputError>>,
) -> Result<ValidationReport, Vec<InputError>> {
    match lowered {
        Err(e) => errors.extend(e),
        Ok(Err(e)) => {
            // A fact both the validator and lowering reject (an unknown operator, ...) is
            // reported once, by the validator.
            let seen: Vec<(Option<String>, Option<usize>, Option<String>)> =
                errors.iter().map(|x| (x.source.clone(), x.document, x.path.clone())).collect();
            errors.extend(e.into_iter().filter(|x| !seen.contains(&(x.source.clone(), x.document, x.path.clone()))));
        }
        Ok(Ok(m)) if errors.is_empty() && load::missing_node_classes(&m).is_empty() => {
            return Ok(ValidationReport {
                objects,
                node_pools: m.node_pools.iter().map(|n| n.name.clone()).collect(),
                pods: m.pods.len(),
                warnings: notes.into_iter().chain(launches_nothing(&m)).collect(),
                skipped: m.skipped,
            })
        }
        Ok(Ok(m)) => errors.extend(load::missing_node_classes(&m).into_iter().map(|(_, e)| e)),
    }
    Err(errors)
}

/// The warnings of `validate`: each NodePool whose requirements leave it nothing to launch
/// (the same words the other answers' load warnings use).
fn launches_nothing(m: &Model) -> Vec<Warning> {
    let (_, warnings) = load::unusable_warnings(m);
    warnings
}

/// The answer of `explain`: whichever of pod, instance type and node the request asked about.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Where one provisioning pass puts the asked pod, and why not elsewhere.
    pub pod: Option<PodExplanation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the asked instance type is launched, an option, or rejected for the pod.
    pub instance_type: Option<TypeExplanation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the asked node is or is not disrupted now.
    pub node: Option<NodeExplanation>,
}

/// Why a node is (or is not) disrupted at `now`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeExplanation {
    /// The node's verdict, as in the `consolidate` answer's `nodes`.
    pub node: NodeVerdict,
    /// The command Karpenter would execute now, for context.
    pub command: String,
    /// The node's verdict in one line for people.
    pub summary: String,
    /// The answer's ties that name this node: Karpenter may pick it, or others, instead.
    pub ties: Vec<crate::api::TieOut>,
}

/// Why a pod goes where one provisioning pass puts it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodExplanation {
    /// The pod, as `namespace/name`.
    pub pod: String,
    /// `existing-node`, `new-node-claim` or `unschedulable`.
    pub outcome: PodOutcome,
    /// Where it goes, in one line for people.
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The existing node it binds to, when the outcome is `existing-node`.
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The NodeClaim launched for it, when the outcome is `new-node-claim`.
    pub node_claim: Option<NodeClaimOut>,
    /// Preference relaxation steps that were needed.
    pub relaxations: Vec<String>,
    /// Why each existing node did not take the pod (checked against the nodes as they were
    /// before this pass).
    pub existing_nodes: Vec<Verdict>,
    /// Each NodePool in the order Karpenter tries them.
    pub node_pools: Vec<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why it stays pending, when the outcome is `unschedulable`.
    pub unschedulable: Option<UnschedulableOut>,
}

/// One candidate (node or NodePool) and whether it takes the pod.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The node or NodePool name.
    pub name: String,
    /// True when the candidate can take the pod.
    pub ok: bool,
    /// Why it can or cannot, for people.
    pub reason: String,
}

/// What one instance type means for the pod: launched, a fallback option, or rejected.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeExplanation {
    /// The instance type asked about, e.g. `g5.xlarge`.
    pub instance_type: String,
    /// `launched`, `option` (allowed but not the cheapest) or `rejected`.
    pub verdict: TypeVerdict,
    /// Why, one line per check (requirements, offerings, resources, price filter).
    pub reasons: Vec<String>,
}

fn find_pod(m: &Model, name: &str) -> Option<usize> {
    m.pods.iter().position(|p| p.key() == name).or_else(|| m.pods.iter().position(|p| p.name == name))
}

/// Why pod `pod_name` (`name` or `namespace/name`) goes where one provisioning pass puts it,
/// and, with `instance_type`, why that type was or was not chosen.
pub(crate) fn explain_pod(
    m: &Model,
    warnings: &[Warning],
    pod_name: &str,
    instance_type: Option<&str>,
) -> Result<Explanation, Vec<InputError>> {
    let Some(p) = find_pod(m, pod_name) else {
        let known: Vec<String> = m.pods.iter().filter(|p| p.is_pending()).take(10).map(|p| p.key()).collect();
        return Err(vec![
            InputError::new("unknown-pod", format!("no pod named {pod_name:?}")).help(format!("one of: {}", known.join(", ")))
        ]);
    };
    let sol = scheduling::solve(m);
    // Hints are shown only for a pending pod (its `unschedulable` entry).
    let opts = provision::RenderOptions { hints: m.pods[p].node_name.is_none() && !sol.placements.contains_key(&p) };
    let rendered = provision::render_with(m, &sol, warnings.to_vec(), opts);
    let pod = &m.pods[p];
    let key = pod.key();
    let mut ex = PodExplanation {
        pod: key.clone(),
        // Every branch below sets it.
        outcome: PodOutcome::Unschedulable,
        summary: String::new(),
        node: None,
        node_claim: None,
        relaxations: sol.relaxed.get(&p).cloned().unwrap_or_default(),
        existing_nodes: existing_verdicts(m, p),
        node_pools: Vec::new(),
        unschedulable: None,
    };
    if let Some(node) = &pod.node_name {
        ex.outcome = PodOutcome::Bound;
        ex.summary = format!("{key} already runs on {node}");
    } else {
        match sol.placements.get(&p) {
            Some(Placement::Existing(e)) => {
                let n = &m.nodes[sol.existing[*e].node];
                ex.outcome = PodOutcome::ExistingNode;
                ex.node = Some(n.name.clone());
                ex.summary = format!("{key} fits on existing node {} (existing capacity is used before new nodes)", n.name);
            }
            Some(Placement::Claim(_)) => {
                let claim = rendered.node_claims.iter().find(|c| c.pods.contains(&key)).cloned();
                ex.outcome = PodOutcome::NewNodeClaim;
                if let Some(c) = &claim {
                    let opts = c.instance_type_options.len();
                    ex.summary = format!(
                        "{key} goes to a new {} NodeClaim {} launched as {} {} in {} at ${}/h: the cheapest {} of {opts} instance types that hold its pods{}",
                        c.node_pool,
                        c.name,
                        c.capacity_type.as_deref().unwrap_or("?"),
                        c.instance_type.as_deref().unwrap_or("?"),
                        c.zone.as_deref().unwrap_or("?"),
                        c.price_per_hour.unwrap_or(0.0),
                        c.capacity_type.as_deref().unwrap_or("?"),
                        if c.pods.len() > 1 { format!(" together with {} other pod(s)", c.pods.len() - 1) } else { String::new() }
                    );
                    if let Some(why) = crate::reservation_report::explain_claim(&rendered, c) {
                        ex.summary.push_str("; ");
                        ex.summary.push_str(&why);
                    }
                    // Karpenter's own coin flips: say so rather than pretend to certainty.
                    for tie in &c.ties {
                        ex.summary.push_str(&format!("; note: {}", tie.message));
                    }
                }
                ex.node_claim = claim;
            }
            None => {
                ex.outcome = PodOutcome::Unschedulable;
                ex.unschedulable = rendered.unschedulable.iter().find(|u| u.pod == key).cloned();
                ex.summary = match &ex.unschedulable {
                    Some(u) => format!("{key} stays pending ({}): {}", u.code, u.reasons.first().map(|r| r.message.as_str()).unwrap_or("")),
                    None => format!("{key} stays pending"),
                };
            }
        }
    }
    ex.node_pools = pool_verdicts(m, &sol, p, ex.node_claim.as_ref().map(|c| c.node_pool.as_str()));
    let instance_type = instance_type.map(|it| type_verdict(m, &sol, p, it, ex.node_claim.as_ref()));
    Ok(Explanation { pod: Some(ex), instance_type, node: None })
}

/// Why node `name` is disrupted at `now` (Unix seconds) or stays.
pub(crate) fn explain_node(m: &Model, name: &str, now: i64) -> Result<Explanation, Vec<InputError>> {
    let d = crate::disruption::decide(m, now);
    let Some(v) = d.nodes.iter().find(|n| n.name == name).cloned() else {
        let known: Vec<&str> = d.nodes.iter().take(10).map(|n| n.name.as_str()).collect();
        return Err(vec![InputError::new("unknown-node", format!("no node named {name:?}")).help(format!("one of: {}", known.join(", ")))]);
    };
    let mut summary = if v.disrupted {
        format!("{name} is disrupted now: {}", d.command)
    } else {
        match v.reasons.first() {
            Some(r) => format!("{name} stays ({}): {}", r.code, r.message),
            None => format!("{name} stays"),
        }
    };
    if let Some(c) = d.reservation_changes.iter().find(|c| c.node == name && c.change == ReservationChange::OnDemand) {
        summary.push_str(&format!("; {}", c.message));
    }
    if let Some(dr) = v.drift.as_ref() {
        summary.push_str(&format!("; drifted ({}) because {}", dr.reason, dr.message));
    }
    if let Some(r) = v.repair.as_ref() {
        let reason = if r.reason.is_empty() { String::new() } else { format!(" ({})", r.reason) };
        let when = if r.eligible { "since" } else { "from" };
        summary.push_str(&format!(
            "; unhealthy: {}={}{reason} matches a repair policy ({}m toleration), replaceable {when} {}",
            r.condition,
            r.status,
            r.toleration_seconds / 60,
            r.eligible_at
        ));
        if r.eligible && !m.settings.feature_gates.node_repair {
            summary.push_str(" if the NodeRepair feature gate were on (it is off, Karpenter's default)");
        }
    }
    if let Some(s) = v.score.as_ref() {
        let cmp = if s.approved { ">=" } else { "<" };
        summary.push_str(&format!("; Balanced score of the {} {:.2} {cmp} threshold {:.2}", s.scored_move, s.score, s.threshold));
    }
    let ties: Vec<crate::api::TieOut> = d.ties.iter().filter(|t| t.nodes.iter().any(|n| n == name)).cloned().collect();
    Ok(Explanation { pod: None, instance_type: None, node: Some(NodeExplanation { node: v, command: d.command, summary, ties }) })
}

fn existing_verdicts(m: &Model, p: usize) -> Vec<Verdict> {
    let pod = &m.pods[p];
    existing::build(m, &[])
        .iter()
        .map(|e| {
            let n = &m.nodes[e.node];
            let reason = if let Some(t) = first_untolerated(&e.taints, &pod.tolerations) {
                format!("taint {t} is not tolerated")
            } else if !pod.requests.fits_in(&e.remaining) {
                let short: Vec<String> = pod
                    .requests
                    .shortfalls(&e.remaining)
                    .iter()
                    .map(|(id, need, have)| {
                        let u = m.resources.unit(*id);
                        format!(
                            "{} needs {} but {} is free",
                            m.resources.name(*id),
                            crate::quantity::format_milli(*need, u),
                            crate::quantity::format_milli((*have).max(0), u)
                        )
                    })
                    .collect();
                format!("not enough room: {}", short.join("; "))
            } else {
                let mut full = pod.node_selector.clone();
                if let Some(t) = pod.required_terms.first() {
                    full.add_all(t, &m.interner);
                }
                match e.requirements.compatible(&full, |_| false, &m.interner) {
                    Err(Incompatible::Undefined(k)) => format!("the node has no label {}", m.interner.str(k)),
                    Err(Incompatible::Conflict(k)) => format!("label {} does not match the pod's requirement", m.interner.str(k)),
                    Ok(()) => String::from("compatible (taints, resources and labels); topology constraints decide"),
                }
            };
            Verdict { name: n.name.clone(), ok: reason.starts_with("compatible"), reason }
        })
        .collect()
}

fn pool_verdicts(m: &Model, sol: &scheduling::Solution, p: usize, chosen: Option<&str>) -> Vec<Verdict> {
    let pod = &m.pods[p];
    let failure = sol.failures.iter().find(|(q, _)| *q == p).map(|(_, f)| f);
    let mut out = Vec::new();
    for pool in m.pool_order() {
        let np = &m.node_pools[pool];
        let Some(t) = sol.templates.iter().find(|t| t.pool == pool) else {
            let why = crate::unusable::why(m, pool).map_or_else(|| "it launches nothing".to_string(), |u| u.message);
            out.push(Verdict { name: np.name.clone(), ok: false, reason: format!("not usable: {why}") });
            continue;
        };
        if chosen == Some(np.name.as_str()) {
            out.push(Verdict {
                name: np.name.clone(),
                ok: true,
                reason: format!("chosen (weight {}, the first NodePool in weight order that can take the pod)", np.weight),
            });
            continue;
        }
        if let Some(scheduling::PodFailure::PerPool(errs)) = failure {
            if let Some((_, f)) = errs.iter().find(|(q, _)| *q == pool) {
                let (code, msg) = diagnostics::describe(m, sol, p, pool, f);
                out.push(Verdict { name: np.name.clone(), ok: false, reason: format!("{code}: {msg}") });
                continue;
            }
        }
        let reason = if let Some(taint) = first_untolerated(&np.taints, &pod.tolerations) {
            format!("taint {taint} is not tolerated")
        } else {
            let r = pod_requirements(pod, t, m);
            match np.requirements.compatible(&r, |k| m.is_well_known(k), &m.interner) {
                Err(_) => "the pod's node selector / affinity conflicts with the NodePool".into(),
                Ok(()) => {
                    let its = compatible_types(t, &r, m);
                    if its.is_empty() {
                        "no instance type of the NodePool meets the pod's requirements".into()
                    } else if !its.iter().any(|&i| pod.requests.fits_with(t.overhead(i), t.alloc(i, m))) {
                        diagnostics::resource_message(pod, t, &its, m)
                    } else {
                        format!(
                            "could take the pod ({} compatible types), but a NodePool earlier in weight order or existing capacity did",
                            its.len()
                        )
                    }
                }
            }
        };
        out.push(Verdict { name: np.name.clone(), ok: false, reason });
    }
    out
}

/// "Why not X?": check instance type `name` against the pod and every NodePool.
fn type_verdict(m: &Model, sol: &scheduling::Solution, p: usize, name: &str, claim: Option<&NodeClaimOut>) -> TypeExplanation {
    let Some(i) = m.catalog.find(name) else {
        return TypeExplanation {
            instance_type: name.into(),
            verdict: TypeVerdict::Rejected,
            reasons: vec![format!("{name} is not in the {} catalog", m.catalog.source)],
        };
    };
    if let Some(c) = claim {
        if c.instance_type.as_deref() == Some(name) {
            return TypeExplanation {
                instance_type: name.into(),
                verdict: TypeVerdict::Launched,
                reasons: vec![format!("{name} is the cheapest available {} option", c.capacity_type.as_deref().unwrap_or(""))],
            };
        }
        if c.instance_type_options.iter().any(|o| o == name) {
            let chosen = c.instance_type.clone().unwrap_or_default();
            let pc = sol.claims.iter().find(|pc| pc.pods.contains(&p));
            let price = pc.map(|pc| launch::min_price(i as u32, &pc.requirements, m)).unwrap_or(0.0);
            return TypeExplanation {
                instance_type: name.into(),
                verdict: TypeVerdict::Option,
                reasons: vec![format!(
                    "{name} can hold the pods (it is one of the NodeClaim's {} options) but costs ${} vs ${} for {chosen}",
                    c.instance_type_options.len(),
                    crate::price::round_price(price),
                    c.price_per_hour.unwrap_or(0.0)
                )],
            };
        }
    }
    let it = &m.catalog.types[i];
    let pod = &m.pods[p];
    let mut reasons = Vec::new();
    for pool in m.pool_order() {
        let np = &m.node_pools[pool];
        let prefix = format!("NodePool {}: ", np.name);
        let Some(t) = sol.templates.iter().find(|t| t.pool == pool) else {
            // A NodePool that took no part is named too: it may be the very one that names
            // the type ("why not p5.48xlarge?" when the p5 pool can launch nothing).
            let Some(u) = crate::unusable::why(m, pool) else { continue };
            let names = if it_labels_compatible(it, &np.requirements, m) { format!("allows {name} but ") } else { String::new() };
            reasons.push(format!("{prefix}{names}takes no part in provisioning: {}", u.message));
            continue;
        };
        if !it_labels_compatible(it, &np.requirements, m) {
            let bad: Vec<String> = np
                .requirements
                .iter()
                .filter(|(k, r)| {
                    m.catalog.is_label_key(*k)
                        && *k != m.keys.zone
                        && *k != m.keys.capacity_type
                        && match it.labels.get(*k) {
                            Some(v) => !r.has(v, &m.interner),
                            None => !r.allows_absent(),
                        }
                })
                .map(|(k, r)| {
                    format!(
                        "{} {} (type has {})",
                        m.interner.str(k),
                        r.render(&m.interner),
                        it.labels.get(k).map(|v| m.interner.str(v)).unwrap_or("no such label")
                    )
                })
                .collect();
            reasons.push(format!("{prefix}excluded by its requirements: {}", bad.join("; ")));
            continue;
        }
        if !t.its.contains(&(i as u32)) {
            reasons.push(format!("{prefix}no available offering matches its zones / capacity types"));
            continue;
        }
        let r = pod_requirements(pod, t, m);
        if !it_labels_compatible(it, &r, m) || !it.offerings.iter().any(|o| o.available && offering_compatible(o, &r, m)) {
            reasons.push(format!("{prefix}does not meet the pod's node selector / affinity"));
            continue;
        }
        let need = pod.requests.plus(t.overhead(i as u32));
        let short = need.shortfalls(t.alloc(i as u32, m));
        if !short.is_empty() {
            let s: Vec<String> = short
                .iter()
                .map(|(id, n, h)| {
                    let u = m.resources.unit(*id);
                    format!(
                        "needs {} {} (with DaemonSet overhead), has {}",
                        m.resources.name(*id),
                        crate::quantity::format_milli(*n, u),
                        crate::quantity::format_milli(*h, u)
                    )
                })
                .collect();
            reasons.push(format!("{prefix}too small: {}", s.join("; ")));
            continue;
        }
        if first_untolerated(&np.taints, &pod.tolerations).is_some() {
            reasons.push(format!("{prefix}the pod does not tolerate the NodePool's taints"));
            continue;
        }
        reasons.push(format!("{prefix}fits the pod alone, but the NodeClaim it joined (co-placed pods, limits or topology) ruled it out"));
    }
    if reasons.is_empty() {
        reasons.push("no usable NodePool".into());
    }
    TypeExplanation { instance_type: name.into(), verdict: TypeVerdict::Rejected, reasons }
}

#[cfg(test)]
mod validate_tests {
    use super::{validate, validate_whole};
    use crate::load::{self, Sources};

    /// Every example, conformance and test input, as written and without comments (which the
    /// stream takes more often): `validate` streamed gives the same report, or the same errors
    /// in the same order, as decoding the input whole.
    #[test]
    fn streamed_validation_matches_the_whole_decode() {
        let settings = crate::model::Settings::default();
        let (mut streamed, mut compared) = (0, 0);
        for f in crate::manifest::test_input_files(&["yaml", "yml", "json"]) {
            let Ok(text) = std::fs::read_to_string(&f) else { continue };
            // Large inputs add time, not cases.
            if text.len() > 64 * 1024 {
                continue;
            }
            let stripped: String =
                text.lines().filter(|l| !l.trim_start().starts_with('#')).map(|l| format!("{}\n", l.trim_end())).collect();
            for text in [text, stripped] {
                let inputs = [crate::json::Input { name: Some("in.yaml".into()), text }];
                let sources = Sources { inputs: &inputs, objects: &[], catalog: None, settings: &settings };
                streamed += usize::from(load::validation_streamed(&sources).is_some());
                compared += 1;
                assert_eq!(format!("{:?}", validate(&sources)), format!("{:?}", validate_whole(&sources)), "{}", f.display());
            }
        }
        assert!(compared > 100 && streamed > 20, "{streamed} of {compared} streamed");
    }
}
