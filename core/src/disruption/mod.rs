//! Disruption decisions (spec disruption.md, FORMAT §6): expiration, emptiness, multi-node and
//! single-node consolidation, budgets, and why every other node stays. Re-scheduling reuses the
//! provisioning engine (`scheduling::solve_pods`): there is no second scheduler.

mod balanced;
pub mod budget;
mod consolidation;
mod drift;
pub(crate) use drift::fully_blocked;
mod repair;
mod static_drift;
#[cfg(test)]
mod tests;
mod ties;
mod validation;
pub use validation::{is_validated, narrow, validate_command, COMMAND_VALIDATION_DELAY_SECONDS};

use crate::api::*;
use crate::error::InputError;
use crate::model::{ConsolidationPolicy, ExistingNode, IntOrPercent, Model};
use crate::price::round_price;
use crate::reason::{DisruptionReason, Method, ReasonCode};
use crate::scheduling;
use indexmap::IndexMap;

/// Everything disruption knows about one node.
#[derive(Debug, Clone)]
pub(crate) struct NodeInfo {
    pub node: usize,
    pub pool: Option<usize>,
    pub price: Option<f64>,
    /// Pods that must find a new home (D-3.3.4).
    pub reschedulable: Vec<usize>,
    /// First universal or filter blocker, if any: (code, message; empty in an action-only pass).
    pub blocker: Option<(ReasonCode, String)>,
    /// Karpenter's IsEmpty: no reschedulable pod has a positive eviction cost (D-3.4.3), so a
    /// node whose pods all cost ≤ 0 to evict is empty too.
    pub empty: bool,
    /// RescheduleDisruptionCost (D-3.4.2): 1 + the positive eviction costs of `reschedulable`.
    pub rdc: f64,
    /// Whether Karpenter builds a disruption candidate for the node at all (it passes the
    /// node- and pod-level checks that come before the methods' filters). Balanced totals
    /// count a candidate's `rdc` and any other node's `state_cost`.
    pub candidate: bool,
    /// The disruption cost Karpenter's cluster state keeps for the node (D-6.6): 1 + the
    /// positive eviction costs of every bound pod that is neither terminal nor a DaemonSet's.
    pub state_cost: f64,
}

impl NodeInfo {
    /// Karpenter's consolidation sort key (D-6.5), highest first: price per unit of
    /// disruption. Ties are ordered arbitrarily by Karpenter (ties.rs discloses them).
    pub fn savings_ratio(&self) -> f64 {
        self.price.unwrap_or(0.0) / self.rdc
    }
}

/// The likeliest order in which Karpenter gathers disruption candidates, for breaking ties.
/// `GetCandidates` walks its cluster state's nodes with `lo.Values` over a Go map keyed by
/// provider ID, and the methods' `sort.Slice` keeps equal candidates in that order (an
/// insertion sort below 13 elements). A Go map of up to 8 entries holds them in insertion order
/// and starts its walk at a random one of 8 slots, so the first inserted comes first in most
/// walks; a larger map's walk is hashed, every order equally likely. A running controller
/// inserts a node when its NodeClaim launches, so the likeliest order is launch order:
/// creation time (the NodeClaim's, else the Node's; none counts as earliest), then name. The
/// controller oracle's ctl-269 and ctl-297 deleted empty nodes in launch order where name order
/// never could (ctl-269's launched within one second, which whole-second creation times cannot
/// order); section 60 of docs/karpenter-fidelity.md.
pub(crate) fn map_order(a: &ExistingNode, b: &ExistingNode) -> std::cmp::Ordering {
    a.created.unwrap_or(i64::MIN).cmp(&b.created.unwrap_or(i64::MIN)).then_with(|| a.name.cmp(&b.name))
}

fn reason(code: ReasonCode, message: impl Into<String>) -> Reason {
    Reason { code, node_pool: None, message: message.into() }
}

/// The pool a node belongs to, by its `karpenter.sh/nodepool` label.
fn pool_of(m: &Model, n: &ExistingNode) -> Option<usize> {
    n.nodepool.as_deref().and_then(|np| m.node_pools.iter().position(|p| p.name == np))
}

/// Price of the node's own offering (D-3.4.1): type × zone × capacity type, availability ignored.
pub(crate) fn node_price(m: &Model, n: &ExistingNode) -> Option<f64> {
    let it = m.catalog.types.iter().find(|t| Some(&t.name) == n.instance_type.as_ref())?;
    let zone = n.zone.as_deref()?;
    let ct = n.capacity_type.as_deref()?;
    // The first offering of the node's zone and capacity type (Karpenter's
    // `InstanceType.OfferingPrice`): for a reserved node the first reserved offering of the type
    // in that zone, on-demand price / 10,000,000 (catalog::resolve), so consolidation rarely
    // replaces it.
    it.offerings
        .iter()
        .find(|o| m.interner.str(o.zone) == zone && m.interner.str(o.capacity_type) == ct)
        .map(|o| o.price)
        .filter(|p| p.is_finite())
}

/// Fx-hashed (only looked up, never iterated): built in every disruption pass of a simulated
/// week from every pod's node name, where SipHash was 1.6 % of the week (issue 35).
type ByNode<'a> = crate::fxhash::FxHashMap<&'a str, Vec<usize>>;

/// Non-terminal pods per node name, and the terminating StatefulSet pods per node name (not
/// active, so they block nothing, yet reschedulable: Karpenter moves them with the node and a
/// node holding one is not empty), built once per decision (not once per node).
fn pods_by_node(m: &Model) -> (ByNode<'_>, ByNode<'_>) {
    let (mut active, mut terminating) = (ByNode::default(), ByNode::default());
    for (i, p) in m.pods.iter().enumerate() {
        match (p.node_name.as_deref(), p.terminal) {
            (Some(n), false) => active.entry(n).or_default().push(i),
            (Some(n), true) if p.is_reschedulable() => terminating.entry(n).or_default().push(i),
            _ => {}
        }
    }
    (active, terminating)
}

/// Evictions a ReasonCode::Pdb allows now (FORMAT §3.5).
fn pdb_allows(m: &Model, pdb: &crate::model::Pdb) -> i64 {
    if let Some(a) = pdb.disruptions_allowed {
        return a.max(0);
    }
    let healthy = m
        .pods
        .iter()
        .filter(|p| p.namespace == pdb.namespace && p.node_name.is_some() && !p.terminal && pdb.selector.matches(&p.labels))
        .count() as i64;
    let pct = |p: i64| (p * healthy + 99) / 100;
    let v = match (pdb.min_available, pdb.max_unavailable) {
        (Some(IntOrPercent::Int(n)), _) => healthy - n,
        (Some(IntOrPercent::Percent(p)), _) => healthy - pct(p),
        (None, Some(IntOrPercent::Int(n))) => n,
        (None, Some(IntOrPercent::Percent(p))) => pct(p),
        (None, None) => healthy,
    };
    v.max(0)
}

fn pod_blocker(m: &Model, pods: &[usize], now: i64, say: Say) -> Option<(ReasonCode, String)> {
    for &i in pods {
        let p = &m.pods[i];
        if p.do_not_disrupt_at(now) {
            return Some((
                ReasonCode::DoNotDisruptPod,
                say.text(|| match (p.do_not_disrupt, p.do_not_disrupt_for, p.started) {
                    (false, Some(d), Some(start)) => {
                        let secs = (d as u64).div_ceil(1_000_000_000) as i64;
                        format!(
                            "pod {} has \"karpenter.sh/do-not-disrupt\" annotation, active for {secs}s after its start ({}s more)",
                            p.key(),
                            (start + secs - now).max(0)
                        )
                    }
                    _ => format!("pod {} has \"karpenter.sh/do-not-disrupt\" annotation", p.key()),
                }),
            ));
        }
    }
    for &i in pods {
        let p = &m.pods[i];
        if p.mirror {
            continue;
        }
        let matching: Vec<&crate::model::Pdb> =
            m.pdbs.iter().filter(|b| b.namespace == p.namespace && b.selector.matches(&p.labels)).collect();
        if matching.len() > 1 {
            return Some((
                ReasonCode::Pdb,
                say.text(|| {
                    let names: Vec<String> = matching.iter().map(|b| format!("{}/{}", b.namespace, b.name)).collect();
                    format!("eviction does not support multiple PDBs ({}) for pod {}", names.join(", "), p.key())
                }),
            ));
        }
        if let Some(b) = matching.first() {
            // AlwaysAllow lets an unready pod go whatever the budget (pdb.go, isEvictable).
            if b.always_allow_unhealthy && p.not_ready {
                continue;
            }
            if pdb_allows(m, b) == 0 {
                return Some((ReasonCode::Pdb, say.text(|| format!("pdb {}/{} prevents evicting pod {}", b.namespace, b.name, p.key()))));
            }
        }
    }
    None
}

/// Consolidatable (§5): consolidateAfter elapsed since the last pod event / initialization.
fn consolidatable(m: &Model, n: &ExistingNode, pool: usize, now: i64, say: Say) -> Result<(), (ReasonCode, String)> {
    let np = &m.node_pools[pool];
    let Some(after) = np.disruption.consolidate_after else {
        return Err((
            ReasonCode::ConsolidationDisabled,
            say.text(|| format!("NodePool {:?} has consolidation disabled (consolidateAfter: Never)", np.name)),
        ));
    };
    let t0 = n.consolidation_reference().unwrap_or(i64::MIN / 2);
    if after > 0 && now - t0 < after {
        return Err((
            ReasonCode::NotConsolidatableYet,
            say.text(|| format!("consolidateAfter {}s has not elapsed: last pod event or initialization {}s ago", after, now - t0)),
        ));
    }
    Ok(())
}

/// Whether blocker messages are wanted (they are output only: an action-only pass skips them).
#[derive(Clone, Copy)]
pub(crate) struct Say(pub bool);

impl Say {
    fn text(self, message: impl FnOnce() -> String) -> String {
        if self.0 {
            message()
        } else {
            String::new()
        }
    }
}

/// Blockers that stop Karpenter from building a candidate for the node (NewCandidate); every
/// other blocker is a method filter applied to a candidate.
pub(crate) const PRE_CANDIDATE: [ReasonCode; 9] = [
    ReasonCode::Unmanaged,
    ReasonCode::Rebooting,
    ReasonCode::NotInitialized,
    ReasonCode::Deleting,
    ReasonCode::Nominated,
    ReasonCode::DoNotDisruptNode,
    ReasonCode::NodepoolNotFound,
    ReasonCode::DoNotDisruptPod,
    ReasonCode::Pdb,
];

pub(crate) fn node_infos(m: &Model, now: i64, say: Say) -> Vec<NodeInfo> {
    let (by_node, terminating) = pods_by_node(m);
    m.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let pool = pool_of(m, n);
            let pods = by_node.get(n.name.as_str()).cloned().unwrap_or_default();
            let reschedulable: Vec<usize> = pods
                .iter()
                .copied()
                .filter(|&p| m.pods[p].is_reschedulable())
                .chain(terminating.get(n.name.as_str()).into_iter().flatten().copied())
                .collect();
            let positive = |list: &mut dyn Iterator<Item = &usize>| 1.0 + list.map(|&p| m.pods[p].eviction_cost.max(0.0)).sum::<f64>();
            let rdc = positive(&mut reschedulable.iter());
            let state_cost = positive(&mut pods.iter().filter(|&&p| !m.pods[p].owned_by_daemonset));
            let empty = rdc <= 1.0;
            // Asked once: the lookup scans the catalog's types by name.
            let price = node_price(m, n);
            let blocker = if !n.managed {
                Some((
                    ReasonCode::Unmanaged,
                    say.text(|| "node isn't managed by Karpenter (no karpenter.sh/nodepool label or NodeClaim)".into()),
                ))
            } else if n.rebooting && !n.in_flight {
                // Ahead of initialization: a rebooting node rejoins uninitialized.
                Some((ReasonCode::Rebooting, say.text(|| "node is rebooting".into())))
            } else if !n.in_flight && !n.initialized && !n.registered {
                // Karpenter's own words (statenode.go, ValidateNodeDisruptable): not even
                // Repair takes it; the registration timeout does.
                Some((ReasonCode::NotInitialized, say.text(|| "node isn't initialized nor registered".into())))
            } else if n.in_flight || !n.initialized {
                Some((ReasonCode::NotInitialized, say.text(|| "node isn't initialized".into())))
            } else if n.marked_for_deletion {
                Some((ReasonCode::Deleting, say.text(|| "node is deleting or marked for deletion".into())))
            } else if n.nominated(now) {
                // After initialization, before do-not-disrupt (statenode.go, ValidateNodeDisruptable).
                Some((ReasonCode::Nominated, say.text(|| "node is nominated for a pending pod".into())))
            } else if n.do_not_disrupt {
                Some((
                    ReasonCode::DoNotDisruptNode,
                    say.text(|| "disruption is blocked through the \"karpenter.sh/do-not-disrupt\" annotation".into()),
                ))
            } else if pool.is_none() {
                Some((
                    ReasonCode::NodepoolNotFound,
                    say.text(|| format!("nodepool not found (NodePool={})", n.nodepool.clone().unwrap_or_default())),
                ))
            } else if let Some(b) = pod_blocker(m, &pods, now, say) {
                Some(b)
            } else {
                let pool = pool.unwrap_or(0);
                let np = &m.node_pools[pool];
                if np.is_static {
                    Some((ReasonCode::ConsolidationDisabled, say.text(|| format!("NodePool {:?} is static", np.name))))
                } else if let Some(label) = missing_label(n).filter(|_| !empty) {
                    Some((
                        ReasonCode::MissingLabel,
                        say.text(|| format!("node does not have label {label:?}, so Karpenter cannot price it for consolidation")),
                    ))
                } else if let Err(e) = consolidatable(m, n, pool, now, say) {
                    Some(e)
                } else if !empty && np.disruption.policy == ConsolidationPolicy::WhenEmpty {
                    Some((
                        ReasonCode::PolicyWhenEmpty,
                        say.text(|| format!("NodePool {:?} has consolidation policy WhenEmpty, but node is not empty", np.name)),
                    ))
                } else if !empty && price.is_none() {
                    Some((
                        ReasonCode::UnknownInstanceType,
                        say.text(|| "instance type, zone or capacity type of the node is not in the catalog".into()),
                    ))
                } else {
                    None
                }
            };
            // The checks up to the pod blockers are Karpenter's candidate construction; the
            // later ones are the methods' filters (static pool, consolidateAfter, policy, price).
            let candidate = blocker.as_ref().is_none_or(|(code, _)| !PRE_CANDIDATE.contains(code));
            NodeInfo { node: i, pool, price, reschedulable, blocker, empty, rdc, candidate, state_cost }
        })
        .collect()
}

/// Per pool and reason, disruptions allowed now (D-7.4): allowed − disrupting, floored at 0.
pub(crate) fn pool_budget(m: &Model, pool: usize, reason: &str, now: i64) -> Option<i64> {
    let np = &m.node_pools[pool];
    // A rebooting node counts though a reboot resets its initialization (helpers.go
    // NodePoolStatsFromNodes).
    let counted: Vec<&ExistingNode> = m
        .nodes
        .iter()
        .filter(|n| n.managed && (n.initialized || n.rebooting) && !n.in_flight && n.nodepool.as_deref() == Some(np.name.as_str()))
        .collect();
    // NotReady nodes consume every budget but repair's: NotReady is what repair fixes; a
    // reboot in flight consumes every one.
    let disrupting = counted.iter().filter(|n| (!n.ready && reason != "Unhealthy") || n.marked_for_deletion || n.rebooting).count() as i64;
    budget::allowed(&np.disruption.budgets, reason, counted.len(), now).map(|a| (a - disrupting).max(0))
}

/// [`pool_budget`] of every pool for one reason, each counted once: a pass asks it per
/// candidate and per tie-group member, and each answer scans every node (thousands of
/// candidates × thousands of nodes at 5,000 nodes).
pub(crate) fn pool_budgets(m: &Model, reason: &str, now: i64) -> Vec<Option<i64>> {
    (0..m.node_pools.len()).map(|p| pool_budget(m, p, reason, now)).collect()
}

/// Expiration (§10.4): NodeClaim creation + expireAfter ≤ now. Forceful: ignores everything.
fn expired(m: &Model, now: i64) -> Vec<usize> {
    (0..m.nodes.len())
        .filter(|&i| {
            let n = &m.nodes[i];
            if !n.managed || n.marked_for_deletion {
                return false;
            }
            let expire = match n.expire_after {
                Some(e) => e,
                None => pool_of(m, n).and_then(|p| m.node_pools[p].expire_after),
            };
            matches!((expire, n.created), (Some(e), Some(c)) if c.saturating_add(e) <= now)
        })
        .collect()
}

/// The request's `now` (RFC 3339) as Unix seconds; a located error when it is missing or malformed.
pub fn parse_now(now: Option<&str>) -> Result<i64, Vec<InputError>> {
    let Some(s) = now else {
        return Err(vec![InputError::new("required", "disruption decisions need the clock: `now`")
            .path("now")
            .help("an RFC 3339 time, e.g. 2025-03-05T12:00:00Z (--now on the CLI)")]);
    };
    // jiff's own error text is not shown: its formatting is one 29 kB function of the wasm
    // package, and the help's example says what is expected.
    s.parse::<jiff::Timestamp>().map(|t| t.as_second()).map_err(|_| {
        vec![InputError::new("invalid-timestamp", format!("now {s:?} is not an RFC 3339 time"))
            .path("now")
            .help("e.g. 2025-03-05T12:00:00Z")]
    })
}

/// The well-known label a non-empty consolidation candidate lacks, if any, in the order
/// Karpenter's consolidation filter asks (consolidation.go, ShouldDisrupt): without instance
/// type, capacity type and zone it cannot price the node, so it passes the node over and
/// decides for the rest. Emptiness and drift do not need them.
fn missing_label(n: &ExistingNode) -> Option<&'static str> {
    [(crate::labels::INSTANCE_TYPE, &n.instance_type), (crate::labels::CAPACITY_TYPE, &n.capacity_type), (crate::labels::ZONE, &n.zone)]
        .into_iter()
        .find(|(_, v)| v.is_none())
        .map(|(l, _)| l)
}

/// Pods on the cluster's nodes whose `karpenter.sh/do-not-disrupt` value Karpenter cannot read:
/// it treats them as unannotated (and publishes an event); nodecast says so.
fn do_not_disrupt_warnings(m: &Model) -> Vec<Warning> {
    m.pods
        .iter()
        .filter(|p| p.node_name.is_some() && !p.terminal)
        .filter_map(|p| {
            let v = p.do_not_disrupt_invalid.as_ref()?;
            Some(Warning {
                code: "invalid-do-not-disrupt".into(),
                message: format!(
                    "karpenter.sh/do-not-disrupt {v:?} is neither \"true\" nor a positive duration (e.g. \"2m\"); Karpenter treats the pod as not annotated"
                ),
                object: Some(format!("Pod/{}", p.key())),
            })
        })
        .collect()
}

/// What the disruption controller does at `now` (Unix seconds; `now_text` is how the answer
/// shows it) on a loaded model.
pub fn consolidate(m: &Model, warnings: &[Warning], now: i64, now_text: &str) -> Result<Decision, Vec<InputError>> {
    let mut d = decide(m, now);
    d.now = now_text.to_string();
    d.summary = crate::figures::decision_summary(&d);
    d.warnings = warnings.to_vec();
    d.warnings.extend(do_not_disrupt_warnings(m));
    d.warnings.extend(repair::gate_off_warnings(m, now));
    Ok(d)
}

/// When the node's earliest repair policy match not yet eligible at `now` becomes eligible
/// (the simulator looks again then); None when none is pending.
pub fn next_repair_at(m: &Model, n: &ExistingNode, now: i64) -> Option<i64> {
    repair::matches(&m.repair_policies, n).into_iter().filter_map(|m| m.eligible_at).filter(|&t| t > now).min()
}

/// One pass of the disruption controller at `now`.
pub fn decide(m: &Model, now: i64) -> Decision {
    decide_pass(m, now, None, PassFrom::Start)
}

/// [`decide`] for callers that act on the decision and read no verdict but budget blocks (the
/// simulator): the same `decision`, `reason`, `method`, `disrupted_nodes`, `replacement`,
/// `command` and prices, but `nodes` lists only the nodes a budget held back (with those
/// reasons) and `node_pools` is empty. A single-node candidate that provably cannot be
/// consolidated is passed over without re-scheduling it; it would have been rejected, so the
/// first candidate that yields a command is the same. `memo` carries the scheduling baseline's
/// reusable parts from one pass to the next (see `scheduling::Baseline::remembering`): pass the
/// same memo only for models that differ in nodes and pods alone.
pub fn decide_action(m: &Model, now: i64, memo: &mut crate::scheduling::BaselineMemo) -> Decision {
    decide_pass(m, now, Some(memo), PassFrom::Start)
}

/// Where a pass of the disruption controller starts. Karpenter's controller runs its methods in
/// order and the first with a command ends the pass (controller.go, `Reconcile`); a method whose
/// command fails its 15 s validation returns nothing, so the same pass goes on with the next
/// method, at the validation time (validation.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassFrom {
    /// Every method, expiration first.
    Start,
    /// The methods after emptiness (static drift, drift, multi- and single-node
    /// consolidation): emptiness's command failed its validation.
    AfterEmptiness,
    /// Single-node consolidation alone: multi-node's command failed its validation.
    SingleNode,
    /// Expiration alone: the controller is blocked in a command's validation, and expiration
    /// (the NodeClaim's own controller) does not wait for it.
    ExpirationOnly,
}

impl PassFrom {
    fn repair_and_emptiness(self) -> bool {
        self == PassFrom::Start
    }

    fn drift_and_multi_node(self) -> bool {
        matches!(self, PassFrom::Start | PassFrom::AfterEmptiness)
    }

    fn single_node(self) -> bool {
        self != PassFrom::ExpirationOnly
    }
}

/// [`decide_action`] for a pass that goes on after a method whose command failed validation.
/// Expiration (the NodeClaim's own controller in Karpenter, not a method of the pass) is
/// decided in every pass, as in [`decide_action`].
pub fn decide_action_from(m: &Model, now: i64, memo: &mut crate::scheduling::BaselineMemo, from: PassFrom) -> Decision {
    decide_pass(m, now, Some(memo), from)
}

/// `memo` is given for an action-only pass.
fn decide_pass(m: &Model, now: i64, memo: Option<&mut crate::scheduling::BaselineMemo>, from: PassFrom) -> Decision {
    // Nodes whose reservation ended by `now`: the AWS provider's own controllers delete a
    // capacity block's and relabel an ODCR's on-demand before this pass looks at them
    // (catalog::reservation_time). The simulator applies them as its clock passes the end, so
    // it finds none here.
    let changes = crate::catalog::reservation_time::changes(m, now);
    if changes.is_empty() {
        return decide_changed(m, now, memo, from);
    }
    let mut changed = m.clone();
    crate::catalog::reservation_time::apply(&mut changed, &changes);
    let mut d = decide_changed(&changed, now, memo, from);
    d.reservation_changes = crate::reservation_report::changes_out(m, &changes);
    for c in d.reservation_changes.iter().filter(|c| c.change == crate::catalog::reservation_time::NodeChange::Deleted) {
        if let Some(v) = d.nodes.iter_mut().find(|v| v.name == c.node) {
            v.reasons = vec![reason(ReasonCode::Deleting, format!("the NodeClaim is being deleted: {}", c.message))];
        }
    }
    d
}

fn decide_changed(m: &Model, now: i64, memo: Option<&mut crate::scheduling::BaselineMemo>, from: PassFrom) -> Decision {
    let action_only = memo.is_some();
    let infos = node_infos(m, now, Say(!action_only));
    let mut d = Decision { skipped: m.skipped.clone(), ..Default::default() };
    let mut verdicts: IndexMap<usize, Vec<Reason>> = IndexMap::new();
    // Balanced scores per node: of the move tried for it, or of the command that takes it.
    let mut scores: IndexMap<usize, BalancedScore> = IndexMap::new();
    // Blocker verdicts are output only: no method reads them (they look for budget reasons).
    for info in infos.iter().filter(|_| !action_only) {
        if let Some((code, msg)) = &info.blocker {
            verdicts.entry(info.node).or_default().push(reason(*code, msg.clone()));
        }
    }
    // Which NodeClaims Karpenter's drift controller has marked drifted (drift.rs).
    let drifted: IndexMap<usize, drift::Drifted> =
        (0..m.nodes.len()).filter_map(|i| drift::drifted(m, &m.nodes[i], now).map(|d| (i, d))).collect();
    let expired = expired(m, now);
    // Each node's repair policy decision (repair.rs), whatever the gate: the answer shows it.
    let repairs: IndexMap<usize, repair::Resolved> =
        (0..m.nodes.len()).filter_map(|i| repair::resolve(&m.repair_policies, &m.nodes[i], now).map(|r| (i, r))).collect();
    if !expired.is_empty() {
        d.decision = Action::Delete;
        d.method = Some(Method::Expiration);
        d.reason = Some(Method::Expiration.reason());
        d.disrupted_nodes = expired.iter().map(|&i| m.nodes[i].name.clone()).collect();
    } else if let Some(mut cmd) = from.repair_and_emptiness().then(|| repair::repair(m, &infos, &repairs, now, &mut verdicts)).flatten() {
        // Repair is the first disruption method Karpenter registers (controller.go NewMethods).
        d.decision = if cmd.replacements.is_empty() { Action::Delete } else { Action::Replace };
        d.method = Some(Method::Repair);
        d.reason = Some(Method::Repair.reason());
        d.disrupted_nodes = vec![m.nodes[cmd.node].name.clone()];
        d.terminate_first = cmd.terminate_first;
        if !cmd.replacements.is_empty() {
            d.replacement = Some(cmd.replacements.remove(0));
            d.more_replacements = cmd.replacements;
        }
    } else if let Some((nodes, ties)) =
        from.repair_and_emptiness().then(|| consolidation::emptiness(m, &infos, now, &mut verdicts)).flatten()
    {
        d.decision = Action::Delete;
        d.method = Some(Method::Emptiness);
        d.reason = Some(Method::Emptiness.reason());
        d.disrupted_nodes = nodes.iter().map(|&i| m.nodes[i].name.clone()).collect();
        d.ties = ties;
    } else if let Some(mut cmds) =
        from.drift_and_multi_node().then(|| static_drift::static_drift(m, &infos, &drifted, now, &mut verdicts)).flatten()
    {
        // StaticDrift (between Emptiness and Drift): one command per taken node, all carried
        // out in this pass; Karpenter budgets them under Drifted as Drift's.
        d.decision = if cmds.replacements.is_empty() { Action::Delete } else { Action::Replace };
        d.terminate_first = cmds.terminate_first;
        d.method = Some(Method::Drift);
        d.reason = Some(Method::Drift.reason());
        d.disrupted_nodes = cmds.nodes.iter().map(|&n| m.nodes[n].name.clone()).collect();
        if !cmds.replacements.is_empty() {
            d.replacement = Some(cmds.replacements.remove(0));
            d.more_replacements = cmds.replacements;
        }
        d.ties = cmds.ties;
    } else if let Some((i, mut replacements, terminate_first)) =
        from.drift_and_multi_node().then(|| drift::drift(m, &infos, &drifted, now, &mut verdicts)).flatten()
    {
        d.decision = if replacements.is_empty() { Action::Delete } else { Action::Replace };
        d.terminate_first = terminate_first;
        d.method = Some(Method::Drift);
        d.reason = Some(Method::Drift.reason());
        d.disrupted_nodes = vec![m.nodes[infos[i].node].name.clone()];
        if !replacements.is_empty() {
            d.replacement = Some(replacements.remove(0));
            d.more_replacements = replacements;
        }
    } else if let Some(cmd) = {
        let attempts = consolidation::Attempts::new(m, &infos, now, action_only, memo);
        from.drift_and_multi_node()
            .then(|| consolidation::multi_node(&attempts, &infos, &mut verdicts))
            .flatten()
            .or_else(|| from.single_node().then(|| consolidation::single_node(&attempts, &infos, &mut verdicts, &mut scores)).flatten())
    } {
        d.decision = if cmd.replacement.is_some() { Action::Replace } else { Action::Delete };
        d.method = Some(cmd.method);
        d.reason = Some(cmd.method.reason());
        d.disrupted_nodes = cmd.nodes.iter().map(|&i| m.nodes[i].name.clone()).collect();
        for &n in &cmd.nodes {
            let pool = m.nodes[n].nodepool.as_deref();
            if let Some(s) = cmd.scores.iter().find(|s| Some(s.node_pool.as_str()) == pool) {
                scores.insert(n, s.clone());
            }
        }
        d.replacement = cmd.replacement;
        d.scores = cmd.scores;
        d.ties = cmd.ties;
    } else {
        d.decision = Action::None;
    }
    d.disrupted_nodes.sort();
    // What the nodes cost: the EC2 price Karpenter decides by, plus EKS Auto Mode's fee when a
    // fee table is given (catalog::auto_mode_fee; the fee never enters the decision).
    use crate::catalog::auto_mode_fee::of_names as fee;
    let cost = |i: &NodeInfo| {
        let n = &m.nodes[i.node];
        i.price.map(|p| p + fee(m, n.nodepool.as_deref(), n.instance_type.as_deref()).unwrap_or(0.0))
    };
    let before: f64 = infos.iter().filter(|i| m.nodes[i.node].managed).filter_map(cost).sum();
    let removed: f64 = infos.iter().filter(|i| d.disrupted_nodes.contains(&m.nodes[i.node].name)).filter_map(cost).sum();
    let added: f64 = d
        .replacement
        .iter()
        .chain(&d.more_replacements)
        .filter_map(|r| r.price_per_hour.map(|p| p + fee(m, Some(&r.node_pool), r.instance_type.as_deref()).unwrap_or(0.0)))
        .sum();
    d.price_per_hour_before = round_price(before);
    d.price_per_hour_after = round_price(before - removed + added);
    d.savings_per_month = crate::figures::per_month(d.price_per_hour_before - d.price_per_hour_after);
    d.command = command_text(&d);
    if action_only {
        // As in the full answer below, a node the command takes shows no verdict: a budget an
        // earlier method found spent for it (multi-node's cut) did not hold it back.
        for (&node, reasons) in verdicts.iter().filter(|(&n, _)| !d.disrupted_nodes.contains(&m.nodes[n].name)) {
            let budget: Vec<Reason> = reasons.iter().filter(|r| r.code == ReasonCode::Budget).cloned().collect();
            if !budget.is_empty() {
                let n = &m.nodes[node];
                d.nodes.push(NodeVerdict {
                    name: n.name.clone(),
                    node_pool: n.nodepool.clone(),
                    instance_type: n.instance_type.clone(),
                    capacity_type: n.capacity_type.clone(),
                    price_per_hour: infos[node].price.map(round_price),
                    pods: infos[node].reschedulable.len(),
                    disrupted: false,
                    reasons: budget,
                    score: None,
                    drift: drifted.get(&node).map(drift_out),
                    repair: repairs.get(&node).and_then(|r| repair::out(n, r)),
                });
            }
        }
        d.nodes.sort_by(|a, b| a.name.cmp(&b.name));
        return d;
    }
    for info in &infos {
        let n = &m.nodes[info.node];
        let disrupted = d.disrupted_nodes.contains(&n.name);
        let mut reasons = if disrupted { Vec::new() } else { verdicts.get(&info.node).cloned().unwrap_or_default() };
        if !disrupted && reasons.is_empty() {
            let why = match d.method {
                Some(method) => format!("the pass ended with {method} on other nodes before this node was considered"),
                None => "no disruption method found an action for this node".into(),
            };
            reasons.push(reason(ReasonCode::NotEvaluated, why));
        }
        d.nodes.push(NodeVerdict {
            name: n.name.clone(),
            node_pool: n.nodepool.clone(),
            instance_type: n.instance_type.clone(),
            capacity_type: n.capacity_type.clone(),
            price_per_hour: info.price.map(round_price),
            pods: info.reschedulable.len(),
            disrupted,
            reasons,
            score: scores.get(&info.node).cloned(),
            drift: drifted.get(&info.node).map(drift_out),
            repair: repairs.get(&info.node).and_then(|r| repair::out(n, r)),
        });
    }
    d.nodes.sort_by(|a, b| a.name.cmp(&b.name));
    for (i, np) in m.node_pools.iter().enumerate() {
        let nodes = m.nodes.iter().filter(|n| n.managed && n.nodepool.as_deref() == Some(np.name.as_str())).count();
        // `Unhealthy` only where repair runs, so the default answers keep their shape.
        let reasons: &[&str] = if m.settings.feature_gates.node_repair {
            &["Empty", "Underutilized", "Drifted", "Unhealthy"]
        } else {
            &["Empty", "Underutilized", "Drifted"]
        };
        let allowed = reasons.iter().map(|r| (r.to_string(), pool_budget(m, i, r, now))).collect();
        d.node_pools.push(PoolBudgetOut { name: np.name.clone(), nodes, allowed });
    }
    d
}

fn drift_out(d: &drift::Drifted) -> DriftOut {
    DriftOut { reason: d.reason.clone(), message: d.message.clone() }
}

pub(crate) fn command_text(d: &Decision) -> String {
    let list = d.disrupted_nodes.join(", ");
    let n = d.disrupted_nodes.len();
    let s = if n == 1 { "" } else { "s" };
    match (d.decision, &d.replacement) {
        (Action::Delete, _) => format!(
            "delete {n} node{s} ({list}), reason {}{}",
            d.reason.map_or("", DisruptionReason::as_str),
            match d.terminate_first {
                Some(TerminateFirst::NoReservedCapacity) => ", terminate-first: its reserved slot is the only room for its pods",
                Some(TerminateFirst::StaticAtLimit) => ", terminate-first: its static NodePool is at its node limit",
                None => "",
            }
        ),
        (Action::Replace, Some(r)) => {
            let opts: Vec<&str> = r.instance_type_options.iter().take(5).map(String::as_str).collect();
            let more = r.instance_type_options.len().saturating_sub(5);
            let others = match d.more_replacements.len() {
                0 => String::new(),
                k => format!(" and {k} more node{}", if k == 1 { "" } else { "s" }),
            };
            format!(
                "replace {n} node{s} ({list}) with 1 {} node from [{}{}]{others}, reason {}",
                r.capacity_type.clone().unwrap_or_default(),
                opts.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                d.reason.map_or("", DisruptionReason::as_str)
            )
        }
        _ => "no action".into(),
    }
}

/// The pods Karpenter's disruption simulation adds for the nodes already deleting
/// (disruption/helpers.go SimulateScheduling: `deletingNodes.CurrentlyReschedulablePods`, the
/// same pods the provisioner re-places: reschedulable, not protected by do-not-disrupt at
/// `now`, not behind a PDB that allows no eviction), in index order. They are bound, so a
/// failure of one refuses the command (`AllNonPendingPodsScheduled`), and a NodeClaim opened
/// for them counts as one of the command's; an uninitialized node they land on refuses
/// nothing (the simulation exempts them).
pub(crate) fn deleting_node_pods(m: &Model, now: i64) -> Vec<usize> {
    let deleting: Vec<usize> = (0..m.nodes.len()).filter(|&k| m.nodes[k].marked_for_deletion).collect();
    crate::catalog::reservation_time::reschedulable_of_deleting(m, &deleting, Some(now), fully_blocked).0
}

/// The moved pods a simulation placed on an existing node that has not finished initializing (a
/// managed node without `karpenter.sh/initialized`, or an in-flight NodeClaim), as failures:
/// Karpenter's SimulateScheduling (disruption/helpers.go) gives each an UninitializedNodeError,
/// so no method (consolidation, drift, repair) decides on the strength of such a node.
fn uninitialized_landings(m: &Model, sol: &scheduling::Solution, moved: impl Fn(usize) -> bool) -> Vec<String> {
    sol.existing
        .iter()
        .filter(|e| {
            let n = &m.nodes[e.node];
            n.managed && (n.in_flight || !n.initialized)
        })
        .flat_map(|e| {
            e.pods
                .iter()
                .filter(|&&p| moved(p))
                .map(move |&p| format!("{} (would schedule against uninitialized node {})", m.pods[p].key(), m.nodes[e.node].name))
        })
        .collect()
}

/// The NodeClaims a re-scheduling of a candidate's pods opens, as replacements, and the moved
/// pods left on a NodeClaim the option truncation leaves short of minValues (Karpenter does not
/// create it: its pods fail, which only matters for the candidate's own pods). Drift and repair
/// both launch replacements this way.
fn replacements_of(m: &Model, sol: &scheduling::Solution, moved: &[usize]) -> (Vec<Replacement>, Vec<String>) {
    let mut replacements = Vec::new();
    let mut stranded = Vec::new();
    for (c, pc) in sol.claims.iter().enumerate() {
        let t = &sol.templates[pc.template];
        // A claim the option truncation leaves short of minValues is not created: its pods
        // fail, which only matters for the candidate's own pods.
        let Ok(fin) = scheduling::launch::finalize(c, pc, t, m) else {
            stranded.extend(pc.pods.iter().filter(|p| moved.contains(p)).map(|&p| m.pods[p].key()));
            continue;
        };
        let name = |it: u32| m.catalog.types[it as usize].name.clone();
        let mut pod_keys: Vec<String> = pc.pods.iter().map(|&p| m.pods[p].key()).collect();
        pod_keys.sort();
        let chosen = fin.launch;
        replacements.push(Replacement {
            node_pool: m.node_pools[t.pool].name.clone(),
            instance_type: chosen.as_ref().map(|l| name(l.it)),
            capacity_type: chosen.as_ref().map(|l| m.interner.str(l.capacity_type).to_string()),
            zone: chosen.as_ref().map(|l| m.interner.str(l.zone).to_string()),
            price_per_hour: chosen.as_ref().map(|l| round_price(l.price)),
            instance_type_options: fin.options.iter().map(|&i| name(i)).collect(),
            pods: pod_keys,
            launch: chosen.map(|launch| crate::api::ChosenLaunch { pool: t.pool, launch }),
        });
    }
    (replacements, stranded)
}
