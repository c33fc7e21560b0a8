//! Karpenter's command validation (disruption/validation.go): emptiness, multi-node and
//! single-node consolidation compute a command, wait `commandValidationDelay` (15 s,
//! consolidation.go) inside the same pass, and check it again against the cluster as it is
//! then. Drift, static drift and repair are not validated; expiration is the NodeClaim's own
//! controller. The simulator (simulate/validation.rs) waits the 15 s on its clock and asks
//! [`validate_command`]; the one-shot `consolidate` answers the decision alone.
//!
//! The checks reuse this crate's candidate filter (`node_infos` and the methods' filters in
//! consolidation.rs) and its scheduling simulation (`consolidation::simulate_removal`): one
//! filter over the nodes and, for consolidation, one simulation of the command's candidates.

use super::consolidation;
use super::*;

/// `commandValidationDelay` (consolidation.go): how long a command waits before it is
/// validated and carried out.
pub const COMMAND_VALIDATION_DELAY_SECONDS: i64 = 15;

/// Why validation dropped a node from a command, in the words of Karpenter's
/// `getValidationFailureReason` (validation.go) and its `ConsolidationRejected` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionKind {
    /// The node is no longer a candidate of the method (`ChurnValidationError`): a pod arrived
    /// or was nominated to it, it is being deleted, its consolidateAfter restarted, ...
    Churn,
    /// Its NodePool's budget no longer allows it (`BudgetValidationError`).
    Budget,
    /// Consolidation's scheduling simulation no longer gives the command
    /// (`SchedulingValidationError`).
    Scheduling,
}

impl RejectionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RejectionKind::Churn => "churn",
            RejectionKind::Budget => "budget",
            RejectionKind::Scheduling => "scheduling",
        }
    }
}

/// One node validation dropped, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub node: String,
    pub kind: RejectionKind,
    pub message: String,
}

/// What validation leaves of a command: the nodes that go ahead (all of a consolidation
/// command's or none; emptiness goes ahead with the ones still valid) and the ones dropped.
#[derive(Debug, Clone, Default)]
pub struct Validated {
    pub nodes: Vec<String>,
    pub rejected: Vec<Rejection>,
}

/// Whether Karpenter validates a command of this method before carrying it out.
pub fn is_validated(method: Option<Method>) -> bool {
    matches!(method, Some(Method::Emptiness | Method::MultiNodeConsolidation | Method::SingleNodeConsolidation))
}

/// Validates command `d` (decided [`COMMAND_VALIDATION_DELAY_SECONDS`] earlier) on `m` at
/// `now`. A method that is not validated keeps its whole command. `memo` is the caller's
/// scheduling memo (see [`decide_action`]).
pub fn validate_command(m: &Model, now: i64, d: &Decision, memo: &mut crate::scheduling::BaselineMemo) -> Validated {
    if !is_validated(d.method) {
        return Validated { nodes: d.disrupted_nodes.clone(), rejected: Vec::new() };
    }
    let infos = node_infos(m, now, Say(false));
    if d.method == Some(Method::Emptiness) {
        emptiness(m, now, d, &infos)
    } else {
        consolidation(m, now, d, &infos, memo)
    }
}

/// The model index of each of the command's nodes that is still a candidate of the method
/// (`keep`), and a churn rejection for every other one.
fn still_candidates(m: &Model, d: &Decision, infos: &[NodeInfo], keep: impl Fn(&NodeInfo) -> bool) -> (Vec<usize>, Vec<Rejection>) {
    let (mut cands, mut rejected) = (Vec::new(), Vec::new());
    for name in &d.disrupted_nodes {
        let churn = |why: String| Rejection { node: name.clone(), kind: RejectionKind::Churn, message: why };
        match m.nodes.iter().position(|n| &n.name == name) {
            None => rejected.push(churn("the node is gone".into())),
            Some(i) if keep(&infos[i]) => cands.push(i),
            Some(i) => rejected.push(churn(match &infos[i].blocker {
                Some((code, _)) => format!("no longer a candidate ({})", code.as_str()),
                None if infos[i].empty => "no longer a consolidation candidate: it is empty now".into(),
                None => "no longer an emptiness candidate: it is not empty now".into(),
            })),
        }
    }
    (cands, rejected)
}

/// Takes one disruption of `reason` from each candidate's pool budget (rebuilt at `now`, as
/// `BuildDisruptionBudgetMapping`), in the command's order: the candidates the budgets allow,
/// and a budget rejection for the others.
fn within_budgets(m: &Model, now: i64, infos: &[NodeInfo], cands: Vec<usize>, reason: &str) -> (Vec<usize>, Vec<Rejection>) {
    let mut left: IndexMap<usize, Option<i64>> = IndexMap::new();
    let (mut kept, mut rejected) = (Vec::new(), Vec::new());
    for i in cands {
        let Some(pool) = infos[i].pool else { continue };
        let b = left.entry(pool).or_insert_with(|| pool_budget(m, pool, reason, now));
        match b {
            Some(0) => rejected.push(Rejection {
                node: m.nodes[i].name.clone(),
                kind: RejectionKind::Budget,
                message: format!("NodePool {:?} allows no more disruptions for reason {reason} now", m.node_pools[pool].name),
            }),
            Some(n) => {
                *n -= 1;
                kept.push(i);
            }
            None => kept.push(i),
        }
    }
    (kept, rejected)
}

/// `EmptinessValidator.validateCandidates`: the command's nodes that are still empty
/// candidates (a nominated node is none: `GetCandidates` refuses it) and within the `Empty`
/// budgets go ahead. Karpenter walks the still-valid ones in its cluster state's map order; the
/// command's own order (most expensive first) is used here.
fn emptiness(m: &Model, now: i64, d: &Decision, infos: &[NodeInfo]) -> Validated {
    let (cands, mut rejected) = still_candidates(m, d, infos, |i| consolidation::emptiness_candidate(m, i));
    let (kept, over) = within_budgets(m, now, infos, cands, "Empty");
    rejected.extend(over);
    Validated { nodes: kept.iter().map(|&i| m.nodes[i].name.clone()).collect(), rejected }
}

/// `ConsolidationValidator.isValid`, all or nothing: every candidate still a consolidation
/// candidate, all within the `Underutilized` budgets, and a scheduling simulation of removing
/// them that places every pod that is not pending and opens the NodeClaims the command expects:
/// none for a delete; for a replace exactly one, whose instance-type options include all of the
/// command's (`instanceTypesAreSubset`: the simulation does not filter by price). Karpenter
/// checks the candidates once more after the simulation; on the simulator's clock nothing
/// happens in between, so that check cannot fail and is not repeated.
fn consolidation(m: &Model, now: i64, d: &Decision, infos: &[NodeInfo], memo: &mut crate::scheduling::BaselineMemo) -> Validated {
    let all = |kind: RejectionKind, message: String| Validated {
        nodes: Vec::new(),
        rejected: d.disrupted_nodes.iter().map(|n| Rejection { node: n.clone(), kind, message: message.clone() }).collect(),
    };
    let (cands, churned) = still_candidates(m, d, infos, consolidation::consolidation_candidate);
    if let Some(first) = churned.first() {
        return all(RejectionKind::Churn, format!("{} is {}", first.node, first.message));
    }
    let (cands, over) = within_budgets(m, now, infos, cands, "Underutilized");
    if let Some(first) = over.first() {
        return all(RejectionKind::Budget, format!("{}: {}", first.node, first.message));
    }
    let attempts = consolidation::Attempts::new(m, infos, now, true, Some(memo));
    let removal = match consolidation::simulate_removal(&attempts, infos, &cands) {
        Ok(r) => r,
        Err(consolidation::Rejection(_, message, _)) => return all(RejectionKind::Scheduling, message),
    };
    let expected = d.replacement.as_ref();
    let problem = match (removal.claims.as_slice(), expected) {
        ([], None) => None,
        ([], Some(_)) => Some("the pods now fit without a new node (a better command may exist)".to_string()),
        ([_], None) => Some("the pods now need a new node".to_string()),
        ([(_, fin)], Some(r)) => {
            let names: Vec<&str> = fin.options.iter().map(|&i| m.catalog.types[i as usize].name.as_str()).collect();
            let missing: Vec<&str> = r.instance_type_options.iter().map(String::as_str).filter(|o| !names.contains(o)).collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "the replacement's options are no longer all among the new node's ({} of them are not, e.g. {})",
                    missing.len(),
                    missing[0]
                )
            })
        }
        (more, _) => Some(format!("the pods now need {} new nodes", more.len())),
    };
    match problem {
        Some(message) => all(RejectionKind::Scheduling, message),
        None => Validated { nodes: d.disrupted_nodes.clone(), rejected: Vec::new() },
    }
}

/// The command as validation left it: `nodes` of an emptiness command (a subset of its
/// nodes), its text recomputed for them (the prices stay the decision's).
pub fn narrow(d: &Decision, nodes: &[String]) -> Decision {
    let mut out = d.clone();
    if nodes.len() == d.disrupted_nodes.len() {
        return out;
    }
    out.disrupted_nodes.retain(|n| nodes.contains(n));
    out.command = command_text(&out);
    out
}
