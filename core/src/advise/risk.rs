//! The risk an advised edit adds, so a cheaper plan that a team would not run is ranked below
//! a safe one (issue 30: moving a 4-node `do-not-disrupt` PyTorchJob to spot was the top advice).
//!
//! Levels, from the plan with the edit against the plan without (docs/advise.md):
//! - high: pods that must not be interrupted newly run on spot — `karpenter.sh/do-not-disrupt`
//!   pods (the annotation stops Karpenter's voluntary disruption, not an EC2 spot interruption),
//!   and pods of run-to-completion work (Jobs and the training kinds), which lose the work done
//!   since their last checkpoint;
//! - medium: pods newly in a capacity block (it ends: Karpenter deletes its NodeClaims from 40
//!   minutes before its EndDate) or an interruptible reservation (EC2 may reclaim it), other
//!   pods newly on spot (a two-minute interruption notice, rescheduled), or a
//!   NodeClaim left with fewer than [`FEW_OPTIONS`] instance types to fall back on when EC2 has
//!   no capacity for the first;
//! - low: existing nodes take more pods (less headroom);
//! - none: nothing of the above.

use crate::api::Plan;
use crate::model::Model;
use crate::reason::RiskLevel;
use std::collections::{HashMap, HashSet};

/// A NodeClaim with fewer instance-type options than this has little to fall back on when EC2
/// reports insufficient capacity for its cheapest.
pub const FEW_OPTIONS: usize = 3;

/// The workload kinds whose pods run to completion: interrupting one loses work, not just a
/// replica (batch Jobs, Kubeflow and Ray training, JobSet, Volcano, LeaderWorkerSet is serving).
const RUN_TO_COMPLETION: [&str; 11] =
    ["Job", "CronJob", "PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "TrainJob", "JobSet", "RayJob"];

/// The risk of one edit: its level and one line per finding.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Risk {
    /// `none`, `low`, `medium` or `high`: the worst finding.
    pub level: RiskLevel,
    /// What the edit puts at risk, worst first.
    pub reasons: Vec<String>,
}

fn pods_on_spot(p: &Plan) -> HashSet<&str> {
    p.node_claims.iter().filter(|c| c.capacity_type.as_deref() == Some("spot")).flat_map(|c| c.pods.iter().map(String::as_str)).collect()
}

/// Up to three names and how many more.
fn some(names: &[&str]) -> String {
    let more = names.len().saturating_sub(3);
    let shown = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if more > 0 {
        format!("{shown} and {more} more")
    } else {
        shown
    }
}

/// The risk `new` (the plan with the edit) adds to `base`; `m` is the model both plan.
pub fn assess(m: &Model, base: &Plan, new: &Plan) -> Risk {
    let by_key: HashMap<String, usize> = m.pods.iter().enumerate().map(|(i, p)| (p.key(), i)).collect();
    let before = pods_on_spot(base);
    let mut moved: Vec<&str> = pods_on_spot(new).into_iter().filter(|p| !before.contains(p)).collect();
    moved.sort_unstable();
    let (mut pinned, mut batch, mut other) = (Vec::new(), Vec::new(), Vec::new());
    for key in moved {
        let pod = by_key.get(key).map(|&i| &m.pods[i]);
        if pod.is_some_and(|p| p.do_not_disrupt) {
            pinned.push(key);
        } else if pod.and_then(|p| p.owner.as_ref()).is_some_and(|(kind, _)| RUN_TO_COMPLETION.contains(&kind.as_str())) {
            batch.push(key);
        } else {
            other.push(key);
        }
    }
    let mut found: Vec<(RiskLevel, String)> = Vec::new();
    if !pinned.is_empty() {
        found.push((
            RiskLevel::High,
            format!(
                "{} pod(s) marked karpenter.sh/do-not-disrupt would run on spot ({}): the annotation does not stop a spot interruption",
                pinned.len(),
                some(&pinned)
            ),
        ));
    }
    if !batch.is_empty() {
        found.push((
            RiskLevel::High,
            format!(
                "{} pod(s) of run-to-completion work (Jobs, training) would run on spot ({}): an interruption loses the work since the last checkpoint",
                batch.len(),
                some(&batch)
            ),
        ));
    }
    if !other.is_empty() {
        found.push((
            RiskLevel::Medium,
            format!("{} pod(s) would run on spot ({}): EC2 may interrupt them with two minutes' notice", other.len(), some(&other)),
        ));
    }
    found.extend(reserved_findings(m, base, new));
    let narrow: Vec<&str> = new
        .node_claims
        .iter()
        .filter(|c| c.instance_type_options.len() < FEW_OPTIONS)
        .filter(|c| !base.node_claims.iter().any(|b| b.node_pool == c.node_pool && b.instance_type_options.len() < FEW_OPTIONS))
        .map(|c| c.name.as_str())
        .collect();
    if !narrow.is_empty() {
        found.push((
            RiskLevel::Medium,
            format!(
                "{} NodeClaim(s) keep fewer than {FEW_OPTIONS} instance-type options ({}): little to fall back on when EC2 lacks capacity",
                narrow.len(),
                some(&narrow)
            ),
        ));
    }
    let fuller: Vec<&str> = new
        .existing_nodes
        .iter()
        .filter(|n| n.pods.len() > base.existing_nodes.iter().find(|b| b.name == n.name).map_or(0, |b| b.pods.len()))
        .map(|n| n.name.as_str())
        .collect();
    if !fuller.is_empty() {
        found.push((RiskLevel::Low, format!("existing node(s) {} take more pods: less headroom", some(&fuller))));
    }
    // Worst first; equal levels keep the order above.
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    Risk { level: found.first().map_or(RiskLevel::None, |f| f.0), reasons: found.into_iter().map(|f| f.1).collect() }
}

/// Pods an edit newly puts into reserved capacity that ends or can be reclaimed.
fn reserved_findings(m: &Model, base: &Plan, new: &Plan) -> Vec<(RiskLevel, String)> {
    let before: HashSet<&str> =
        base.node_claims.iter().filter(|c| c.reservation_id.is_some()).flat_map(|c| c.pods.iter().map(String::as_str)).collect();
    // (pod, "id (ends ...)") per pod newly in a capacity block; (pod, id) per pod newly in an
    // interruptible reservation.
    let mut blocks: Vec<(&str, String)> = Vec::new();
    let mut interruptible: Vec<(&str, &str)> = Vec::new();
    for c in &new.node_claims {
        let Some(res) = c.reservation_id.as_deref().and_then(|id| m.reservations.iter().find(|r| r.id == id)) else { continue };
        for p in c.pods.iter().map(String::as_str).filter(|p| !before.contains(p)) {
            if res.kind == Some(crate::model::reservation::ReservationKind::CapacityBlock) {
                let end = res.end.and_then(|e| jiff::Timestamp::from_second(e).ok()).map_or("its EndDate".to_string(), |t| t.to_string());
                blocks.push((p, format!("{} (ends {end})", res.id)));
            } else if res.interruptible {
                interruptible.push((p, res.id.as_str()));
            }
        }
    }
    let mut out = Vec::new();
    if !blocks.is_empty() {
        let pods: Vec<&str> = blocks.iter().map(|b| b.0).collect();
        let mut which: Vec<String> = blocks.iter().map(|b| b.1.clone()).collect();
        which.sort();
        which.dedup();
        out.push((
            RiskLevel::Medium,
            format!(
                "{} pod(s) would run in capacity block {} ({}): Karpenter deletes its NodeClaims from 40 minutes before the block ends",
                pods.len(),
                which.join(", "),
                some(&pods)
            ),
        ));
    }
    if !interruptible.is_empty() {
        let pods: Vec<&str> = interruptible.iter().map(|b| b.0).collect();
        out.push((
            RiskLevel::Medium,
            format!("{} pod(s) would run in an interruptible reservation ({}): EC2 may reclaim its capacity", pods.len(), some(&pods)),
        ));
    }
    out
}
