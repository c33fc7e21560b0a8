//! `advise`: NodePool edits that make Karpenter itself cheaper.
//!
//! Users cannot replace Karpenter's first-fit packing, but they can change its inputs. Starting
//! from the gap `optimize` measures, `candidates` lists the edits a platform engineer would
//! try on the NodePool documents (bounds on GPU count / vCPU, excluded sizes, families and
//! types, generations, spot, weights, and `split`: a weighted copy of a NodePool bounded by GPU
//! count, added as a new document); each is applied to the decoded documents, the cluster is
//! loaded again (the same validation as the user's files) and planned by the same engine that
//! predicts Karpenter. Only edits whose plan is strictly cheaper and leaves no further pod
//! pending are answered, best first; the two best are also tried together.

mod apply;
pub(crate) mod candidates;
mod consolidation;
mod diff;
mod reserved;
pub mod risk;
mod split;
#[cfg(test)]
mod tests;

use crate::api::{Plan, Warning};
use crate::edit::{self, FieldPath};
use crate::error::InputError;
use crate::load::Sources;
use crate::model::Model;
use crate::optimize::{OptimizeSettings, HOURS_PER_MONTH};
use crate::price::round_price;
use crate::reason::RiskLevel;
pub use apply::EditedFile;
use candidates::Candidate;
pub use risk::Risk;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// At most this many single edits are verified per call (each is one load and one plan).
pub const MAX_CANDIDATES: usize = 48;
/// The best this many single edits are also tried pairwise.
const COMBINE_BEST: usize = 3;

/// Request options of `advise` (`request.advise`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AdviseSettings {
    /// Answer at most this many edits (default 5, at most 50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top: Option<usize>,
    /// The whole call's time budget, seconds, in (0, 3600]: half for the `optimize` call that
    /// measures the gap, and edits are verified while the call has time left (each check comes
    /// before a plan, so the call overruns by at most one plan). Edits it leaves unverified are
    /// counted in `stats.unverified` and named in `notes`. Without it, the gap's `optimize` has
    /// its default 10 s and every edit is verified. Read on the clock the front end lends the
    /// core (`interrupt::with_clock`; the CLI, Python and wasm do); without one, only the
    /// `optimize` half binds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_budget_seconds: Option<f64>,
    /// Edit kinds not to propose (see [`KINDS`]), e.g. `["allow-spot"]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude_kinds: Vec<String>,
    /// NodePools no edit may touch (nor split), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude_node_pools: Vec<String>,
    /// Answer only edits whose risk is at most this level (`none`, `low`, `medium`, `high`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_risk: Option<String>,
    /// Rank (1-based) of the answered edit to apply: the answer's `applied` then holds the
    /// user's input files with that edit written into them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply: Option<usize>,
    /// Advise on the running cluster (needs `now`): edits to consolidationPolicy,
    /// consolidateAfter and disruption budgets, each verified by replaying Karpenter's
    /// consolidation at `now` and for a day after, against the running-cluster optimum.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub running: bool,
}

/// The kinds of edit advise proposes (`Advised.kind`), for `excludeKinds`.
pub const KINDS: [&str; 17] = [
    "gpu-count-bound",
    "cpu-bound",
    "size-exclusion",
    "family-exclusion",
    "type-exclusion",
    "family-allow-list",
    "generation-bound",
    "type-allow-list",
    "allow-spot",
    "weight",
    "split",
    "allow-reserved",
    "select-reservation",
    "consolidation-policy",
    "consolidate-after",
    "disruption-budget",
    "combined",
];

/// One change to the input documents.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    /// Put `value` at `path` of document `doc` (the sweep's field-path edits).
    Set { doc: usize, path: FieldPath, value: Value },
    /// Add a requirement to NodePool `doc`, replacing one with the same key and operator.
    Require { doc: usize, requirement: Value },
    /// Append a new NodePool `document`, a restricted copy of NodePool `source` (a split).
    AddNodePool { source: usize, document: Value },
    /// Append the term `{id}` to EC2NodeClass `doc`'s `spec.capacityReservationSelectorTerms`.
    AddReservationTerm { doc: usize, id: String },
}

impl Change {
    fn doc(&self) -> usize {
        match self {
            Change::Set { doc, .. } | Change::Require { doc, .. } | Change::AddReservationTerm { doc, .. } => *doc,
            Change::AddNodePool { source, .. } => *source,
        }
    }

    fn apply(&self, docs: &mut Vec<Value>) -> Result<(), String> {
        match self {
            Change::AddNodePool { document, .. } => {
                docs.push(document.clone());
                Ok(())
            }
            Change::Set { doc, path, value } => edit::apply(&mut docs[*doc], path, value),
            Change::AddReservationTerm { doc, id } => reserved::add_term(&mut docs[*doc], id),
            Change::Require { doc, requirement } => {
                let path = edit::parse(REQUIREMENTS).expect("a fixed, valid path");
                let mut list = docs[*doc].pointer("/spec/template/spec/requirements").cloned().unwrap_or(Value::Array(vec![]));
                let items = list.as_array_mut().ok_or("spec.template.spec.requirements is not a list")?;
                let same = |r: &Value| r.get("key") == requirement.get("key") && r.get("operator") == requirement.get("operator");
                match items.iter().position(same) {
                    Some(i) => items[i] = requirement.clone(),
                    None => items.push(requirement.clone()),
                }
                edit::apply(&mut docs[*doc], &path, &list)
            }
        }
    }

    fn out(&self, docs: &[Value]) -> EditOut {
        let node_pool = docs[self.doc()].pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        match self {
            Change::Set { path, value, .. } => EditOut { node_pool, node_class: None, path: path.to_string(), value: value.clone() },
            Change::Require { requirement, .. } => {
                EditOut { node_pool, node_class: None, path: REQUIREMENTS.to_string(), value: requirement.clone() }
            }
            Change::AddNodePool { document, .. } => EditOut {
                node_pool: document.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string(),
                node_class: None,
                path: String::new(),
                value: document.clone(),
            },
            Change::AddReservationTerm { doc, id } => {
                let mut after = docs[*doc].clone();
                let value = match reserved::add_term(&mut after, id) {
                    Ok(()) => after.pointer(&format!("/{}", TERMS.replace('.', "/"))).cloned().unwrap_or(Value::Null),
                    Err(_) => Value::Null,
                };
                EditOut { node_pool: String::new(), node_class: Some(node_pool), path: TERMS.to_string(), value }
            }
        }
    }
}

const REQUIREMENTS: &str = "spec.template.spec.requirements";
/// The EC2NodeClass field `select-reservation` edits.
const TERMS: &str = "spec.capacityReservationSelectorTerms";

/// The answer of `advise`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Advice {
    /// $/h of Karpenter's plan for the inputs as given.
    pub karpenter_price_per_hour: f64,
    /// $/h of `optimize`'s cheapest NodeClaims for the same pods, and its certificate.
    pub optimum_price_per_hour: f64,
    /// `optimal`, or `within x % of optimal`: how far `optimumPricePerHour` may be above the true optimum.
    pub optimum_certificate: String,
    /// Karpenter − optimum, $/h (what the edits try to recover).
    pub gap_per_hour: f64,
    /// The verified edits, most saving first (at most `top`).
    pub advice: Vec<Advised>,
    /// How many edits were generated, verified and sorted into each outcome.
    pub stats: AdviseStats,
    /// What advise does not search, and what `optimize` did not optimise.
    pub notes: Vec<String>,
    /// Non-fatal findings about the input.
    pub warnings: Vec<Warning>,
    /// The edit of rank `advise.apply` written into the user's input files (comments and
    /// everything else kept); absent when not asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied: Option<Applied>,
}

/// An advised edit written into the input files.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// The rank of the edit applied.
    pub rank: usize,
    /// Each edited input file, whole.
    pub files: Vec<EditedFile>,
    /// The same as a unified patch (paths as given: `patch -p0`, `git apply -p0`).
    pub patch: String,
}

/// One verified NodePool edit that makes Karpenter's plan cheaper.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Advised {
    /// Position in the answer: lowest risk first, then most saving (docs/advise.md).
    pub rank: usize,
    /// The risk the edit adds (spot for pods that must not be interrupted, few fallbacks).
    pub risk: Risk,
    /// `gpu-count-bound`, `cpu-bound`, `size-exclusion`, `family-exclusion`, `type-exclusion`,
    /// `family-allow-list`, `generation-bound`, `type-allow-list`, `allow-spot`, `weight`,
    /// `split`, `allow-reserved`, `select-reservation`, or `combined`.
    pub kind: String,
    /// The edit in one line for people, e.g. which families it excludes.
    pub title: String,
    /// The field edits, per NodePool.
    pub edits: Vec<EditOut>,
    /// A unified diff of each edited NodePool's manifest (as YAML).
    pub diff: String,
    /// A unified patch against the input files themselves (comments kept; `patch -p0` or
    /// `git apply -p0` applies it); absent when an edited NodePool did not come from a named
    /// YAML input (a request object, a `kind: List` member, JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// Karpenter's plan with the edit applied.
    pub plan: PlanSummary,
    /// $/h the edited plan saves against Karpenter's plan for the inputs as given.
    pub savings_per_hour: f64,
    /// `savingsPerHour` × 730 h, to the cent.
    pub savings_per_month: f64,
    /// Share of the gap to the optimum this edit recovers, percent (absent when there is no
    /// gap; above 100 when the edit opens offerings the optimum could not use, such as spot).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap_recovered_percent: Option<f64>,
    /// What else changes: capacity type, existing nodes taking more pods, pods scheduled now.
    pub also_changes: Vec<String>,
}

/// One field edit of a NodePool manifest.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditOut {
    /// The NodePool edited (empty when the edit is to an EC2NodeClass, see `nodeClass`).
    pub node_pool: String,
    /// The EC2NodeClass edited (`select-reservation`), when the edit is to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_class: Option<String>,
    /// The field path in the manifest, e.g. `spec.template.spec.requirements`; empty when the
    /// edit adds the NodePool `value` (a split).
    pub path: String,
    /// The new value at that path (for requirements: the requirement added or replaced).
    pub value: Value,
}

/// A plan in a few numbers and lines.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanSummary {
    /// $/h of the plan's NodeClaims.
    pub price_per_hour: f64,
    /// How many NodeClaims the plan launches.
    pub node_claims: usize,
    /// `count × type capacity-type (NodePool)`, most first.
    pub launches: Vec<String>,
    /// Pods the plan leaves pending.
    pub unschedulable: usize,
}

/// How much `advise` searched and what became of each edit.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdviseStats {
    /// The bound on single edits verified per call.
    pub candidate_limit: usize,
    /// Single edits generated, each verified by one load and one plan (less `unverified`).
    pub candidates: usize,
    /// Pairs of the best single edits tried together.
    pub combinations: usize,
    /// Edits whose plan is strictly cheaper with no further pod pending.
    pub cheaper: usize,
    /// Edits that are cheaper only because they leave pods pending (not answered).
    pub leave_pods_pending: usize,
    /// Edits whose plan is not cheaper.
    pub not_cheaper: usize,
    /// Edits the validation refuses (not answered).
    pub invalid: usize,
    /// Cheaper edits whose plan equals a simpler edit's (not answered twice).
    pub duplicates: usize,
    /// Edits generated but not verified: the call's `timeBudgetSeconds` ran out first (the
    /// answer is the best of those verified; absent when every edit was verified).
    #[serde(skip_serializing_if = "is_zero")]
    pub unverified: usize,
}

impl AdviseStats {
    /// Counts one edit verified by re-running Karpenter (`edit`: the candidate and what it
    /// verified to) and keeps it when it leaves no further pod pending, is cheaper, and is no
    /// `duplicate` of an edit kept before (asked only of a cheaper edit). Both verifications,
    /// the plan's and the running cluster's replay, sort their edits this one way.
    fn tally<T>(
        &mut self,
        verified: &mut Vec<(Candidate, T)>,
        edit: (Candidate, T),
        leaves_pending: bool,
        cheaper: bool,
        duplicate: impl FnOnce(&[(Candidate, T)], &Candidate, &T) -> bool,
    ) {
        if leaves_pending {
            self.leave_pods_pending += 1;
        } else if !cheaper {
            self.not_cheaper += 1;
        } else if duplicate(verified, &edit.0, &edit.1) {
            self.duplicates += 1;
        } else {
            self.cheaper += 1;
            verified.push(edit);
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a plan launches: its price (bits) and each (instance type, capacity type), sorted.
type Launched<'a> = (u64, Vec<(Option<&'a str>, Option<&'a str>)>);

/// The plan's price and (instance type, capacity type) launched, whatever the NodePools' names.
fn launched(plan: &Plan) -> Launched<'_> {
    let mut types: Vec<_> = plan.node_claims.iter().map(|c| (c.instance_type.as_deref(), c.capacity_type.as_deref())).collect();
    types.sort();
    (plan.total_price_per_hour.to_bits(), types)
}

/// Summarise a plan.
pub fn summary(plan: &Plan) -> PlanSummary {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in &plan.node_claims {
        let key = format!("{} {} ({})", c.instance_type.as_deref().unwrap_or("?"), c.capacity_type.as_deref().unwrap_or("?"), c.node_pool);
        *counts.entry(key).or_insert(0) += 1;
    }
    let mut launches: Vec<(String, usize)> = counts.into_iter().collect();
    launches.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    PlanSummary {
        price_per_hour: plan.total_price_per_hour,
        node_claims: plan.node_claims.len(),
        launches: launches.into_iter().map(|(k, n)| format!("{n} × {k}")).collect(),
        unschedulable: plan.unschedulable.len(),
    }
}

/// Advice reads plans for their claims, prices and pending counts, never their fix hints (each
/// would cost up to 16 re-plans per verified edit).
const NO_HINTS: crate::provision::RenderOptions = crate::provision::RenderOptions { hints: false };

/// Advise on the cluster loaded from `sources` (`m` and `warnings` are its model and loading
/// warnings, as `Cluster` holds them).
/// `now`: the pass time reservations are resolved at (`m` is already resolved at it).
pub(crate) fn advise(
    sources: &Sources,
    m: &Model,
    warnings: &[Warning],
    settings: &AdviseSettings,
    now: Option<i64>,
) -> Result<Advice, Vec<InputError>> {
    let top = settings.top.unwrap_or(5);
    if !(1..=50).contains(&top) {
        return Err(vec![InputError::new("invalid-number", format!("top {top} is not in 1..=50"))
            .path("advise.top")
            .help("how many edits to answer, 1 to 50")]);
    }
    let max_risk = check_settings(settings, top)?;
    if settings.running {
        let Some(now) = now else {
            return Err(vec![InputError::new("required", "advise.running needs the clock: `now`")
                .path("now")
                .help("give the time of the pass, e.g. --now 2026-11-29T04:00:00Z")]);
        };
        return consolidation::advise_running(sources, m, warnings, settings, now, top, max_risk);
    }
    let budget = settings.time_budget_seconds;
    // The call's time is up (the lent clock reads seconds since the call started, loading
    // included): checked before each verification (one load and one plan).
    let out_of_time = || budget.zip(crate::interrupt::seconds()).is_some_and(|(b, t)| t >= b);
    let opt = crate::optimize::optimize(
        m,
        warnings,
        &OptimizeSettings { time_budget_seconds: budget.map(|b| b / 2.0), ..Default::default() },
        None,
    )?;
    let (docs, origins) = documents(sources)?;
    check_pools(settings, &docs)?;
    let replan = |docs: &[Value]| -> Option<Plan> {
        let s = Sources { inputs: &[], objects: docs, catalog: sources.catalog, settings: sources.settings };
        let (model, w) = crate::load::model(&s).ok()?;
        let model = crate::catalog::resolve::at_time(&model, now);
        Some(crate::provision::render_with(&model, &crate::scheduling::solve(&model), w, NO_HINTS))
    };
    let base = crate::provision::render_with(m, &crate::scheduling::solve(m), warnings.to_vec(), NO_HINTS);
    // The splits (split.rs) are the most involved edits: their slots are kept first, the other
    // edits fill the rest, so `stats.candidateLimit` bounds every verified edit.
    let splits = split::generate(m, &docs, &base, &opt);
    // Idle reserved capacity first (a handful at most): it is paid for whether used or not.
    let mut cands = reserved::generate(m, &docs, &base);
    let room = MAX_CANDIDATES.saturating_sub(splits.len() + cands.len());
    cands.extend(candidates::generate(m, &docs, &base, &opt, room));
    cands.extend(splits);
    cands.retain(|c| !excluded(settings, &docs, c));
    cands.truncate(MAX_CANDIDATES);
    let gap = round_price(opt.karpenter_price_per_hour - opt.optimum_price_per_hour);
    let mut stats = AdviseStats { candidate_limit: MAX_CANDIDATES, candidates: cands.len(), ..Default::default() };
    let mut verified: Vec<(Candidate, Plan)> = Vec::new();
    let check = |c: Candidate, stats: &mut AdviseStats, verified: &mut Vec<(Candidate, Plan)>| {
        let mut edited = docs.clone();
        if c.changes.iter().any(|ch| ch.apply(&mut edited).is_err()) {
            stats.invalid += 1;
            return;
        }
        let Some(plan) = replan(&edited) else {
            stats.invalid += 1;
            return;
        };
        let pending_before: BTreeSet<&str> = base.unschedulable.iter().map(|u| u.pod.as_str()).collect();
        let leaves_pending = plan.unschedulable.iter().any(|u| !pending_before.contains(u.pod.as_str()));
        let cheaper = plan.total_price_per_hour < base.total_price_per_hour - 1e-9;
        stats.tally(verified, (c, plan), leaves_pending, cheaper, |kept, c, plan| {
            // Two splits that launch the same types for the same price are one edit by two
            // bounds (GPU count, vCPUs or memory): the first (by GPU count) stands for both.
            kept.iter()
                .any(|(v, p)| summary(p) == summary(plan) || (c.kind == "split" && v.kind == "split" && launched(p) == launched(plan)))
        });
    };
    for c in cands {
        if out_of_time() {
            stats.unverified += 1;
            continue;
        }
        check(c, &mut stats, &mut verified);
    }
    let rank = |v: &mut Vec<(Candidate, Plan)>| {
        // Stable: equal savings keep the generation order (simplest first).
        v.sort_by(|a, b| a.1.total_price_per_hour.total_cmp(&b.1.total_price_per_hour));
    };
    rank(&mut verified);
    let best: Vec<Candidate> = verified.iter().take(COMBINE_BEST).map(|(c, _)| c.clone()).collect();
    for i in 0..best.len() {
        for j in i + 1..best.len() {
            let (a, b) = (&best[i], &best[j]);
            if out_of_time() {
                stats.unverified += 1;
                continue;
            }
            stats.combinations += 1;
            let cheapest_single = verified[0].1.total_price_per_hour;
            let mut trial = verified.clone();
            let before = trial.len();
            let combined = Candidate {
                kind: "combined",
                title: format!("{} + {}", a.title, b.title),
                changes: a.changes.iter().chain(&b.changes).cloned().collect(),
            };
            let mut s = stats.clone();
            check(combined, &mut s, &mut trial);
            // A pair is answered only when it beats every single edit.
            if trial.len() > before && trial[before].1.total_price_per_hour < cheapest_single - 1e-9 {
                stats = s;
                verified.push(trial.pop().expect("just pushed"));
            }
        }
    }
    rank(&mut verified);
    // The answer's order: the least risk first, then the most saving (stable: equal ones keep
    // the price order). An edit above `maxRisk` is not answered.
    let mut risked: Vec<(Risk, &(Candidate, Plan))> = verified.iter().map(|v| (risk::assess(m, &base, &v.1), v)).collect();
    risked.retain(|(r, _)| r.level <= max_risk);
    risked.sort_by_key(|(r, _)| r.level);
    let texts: Vec<(Option<&str>, &str)> = sources.inputs.iter().map(|i| (i.name.as_deref(), i.text.as_str())).collect();
    let mut applied = None;
    let advice = risked
        .into_iter()
        .take(top)
        .enumerate()
        .map(|(i, (risk, (c, plan)))| {
            let saved = round_price(base.total_price_per_hour - plan.total_price_per_hour);
            let mut edited = docs.clone();
            for ch in &c.changes {
                ch.apply(&mut edited).expect("applied once already");
            }
            let edited_in_place = c.changes.iter().filter(|ch| !matches!(ch, Change::AddNodePool { .. }));
            let touched: BTreeSet<usize> = edited_in_place.map(Change::doc).collect();
            let mut also = also_changes(&base, plan);
            let mut diff: String = touched.iter().map(|&d| diff::unified(&docs[d], &edited[d])).collect();
            for ch in &c.changes {
                if let Change::AddNodePool { source, document } = ch {
                    diff.push_str(&diff::added(document));
                    also.extend(split_note(&docs[*source], document, plan));
                }
            }
            let files = apply::edit_texts(&texts, &origins, &docs, &c.changes, &edited);
            let patch = files.as_ref().map(|f| apply::patch(&texts, f));
            if settings.apply == Some(i + 1) {
                applied = Some((files, patch.clone()));
            }
            Advised {
                rank: i + 1,
                risk,
                kind: c.kind.to_string(),
                title: c.title.clone(),
                edits: c.changes.iter().map(|ch| ch.out(&docs)).collect(),
                diff,
                patch,
                plan: summary(plan),
                savings_per_hour: saved,
                savings_per_month: round_price(saved * HOURS_PER_MONTH),
                gap_recovered_percent: (gap > 0.0).then(|| (saved / gap * 1000.0).round() / 10.0),
                also_changes: also,
            }
        })
        .collect::<Vec<Advised>>();
    let applied = applied_or_error(settings.apply, applied, advice.len())?;
    let mut notes = vec![
        "searched: GPU-count and vCPU bounds, excluded sizes/families/types, family and type allow-lists, generations, spot, weights; splitting a NodePool by GPU count, vCPUs or memory (a weighted, bounded copy); reserved capacity (allowing `reserved` where a selected reservation is idle, selecting an active reservation nobody selects); consolidation settings: with --running".to_string(),
    ];
    if stats.unverified > 0 {
        notes.push(format!(
            "time budget: the call's {} s ran out with {} edit(s) unverified (of {} singles and the pairs of the best); the answer is the best of those verified, and a larger timeBudgetSeconds verifies the rest",
            budget.unwrap_or_default(),
            stats.unverified,
            stats.candidates
        ));
    }
    notes.extend(opt.not_optimised.iter().map(|n| format!("optimize: {n}")));
    Ok(Advice {
        karpenter_price_per_hour: base.total_price_per_hour,
        optimum_price_per_hour: opt.optimum_price_per_hour,
        optimum_certificate: opt.certificate.clone(),
        gap_per_hour: gap,
        advice,
        stats,
        notes,
        warnings: warnings.to_vec(),
        applied,
    })
}

/// The edit of rank `apply` written into the inputs (`found`: its files and patch, when that
/// rank was answered), or why not.
type Found = Option<(Option<Vec<EditedFile>>, Option<String>)>;

fn applied_or_error(apply: Option<usize>, found: Found, answered: usize) -> Result<Option<Applied>, Vec<InputError>> {
    Ok(match (apply, found) {
        (None, _) => None,
        (Some(rank), Some((Some(files), Some(patch)))) => Some(Applied { rank, files, patch }),
        (Some(rank), Some(_)) => {
            return Err(vec![InputError::new(
                "not-patchable",
                format!("advised edit {rank} edits a NodePool that has no YAML text of its own in the inputs (a request object, a kind: List member or JSON)"),
            )
            .path("advise.apply")
            .help("give the NodePools as YAML files, or apply the edit's `edits` by hand")])
        }
        (Some(rank), None) => {
            return Err(vec![InputError::new("invalid-number", format!("apply {rank}: the answer has {} edit(s)", answered))
                .path("advise.apply")
                .help("the rank of one of the answered edits")])
        }
    })
}

/// The settings' own checks; the risk ceiling they set.
fn check_settings(settings: &AdviseSettings, top: usize) -> Result<RiskLevel, Vec<InputError>> {
    let mut errors = Vec::new();
    for (i, k) in settings.exclude_kinds.iter().enumerate() {
        if !KINDS.contains(&k.as_str()) {
            errors.push(
                InputError::new("unknown-edit-kind", format!("edit kind {k:?} is not one advise proposes"))
                    .path(format!("advise.excludeKinds[{i}]"))
                    .help(format!("one of {}", KINDS.join(", "))),
            );
        }
    }
    let max_risk = match settings.max_risk.as_deref() {
        None => RiskLevel::High,
        Some(r) => RiskLevel::parse(r).unwrap_or_else(|| {
            errors.push(
                InputError::new("invalid-value", format!("risk level {r:?} is not none, low, medium or high"))
                    .path("advise.maxRisk")
                    .help("none, low, medium or high"),
            );
            RiskLevel::High
        }),
    };
    if let Some(s) = settings.time_budget_seconds.filter(|s| !(s.is_finite() && *s > 0.0 && *s <= 3600.0)) {
        errors.push(
            InputError::new("invalid-number", format!("timeBudgetSeconds {s} is not a number of seconds in (0, 3600]"))
                .path("advise.timeBudgetSeconds")
                .help("a positive number of seconds, at most 3600: the whole call's budget"),
        );
    }
    if let Some(rank) = settings.apply.filter(|r| !(1..=top).contains(r)) {
        errors.push(
            InputError::new("invalid-number", format!("apply {rank} is not in 1..={top}"))
                .path("advise.apply")
                .help("the rank of one of the answered edits (at most `top`)"),
        );
    }
    if errors.is_empty() {
        Ok(max_risk)
    } else {
        Err(errors)
    }
}

/// Every excluded NodePool must be one of the input's: a typo would otherwise exclude nothing.
fn check_pools(settings: &AdviseSettings, docs: &[Value]) -> Result<(), Vec<InputError>> {
    let pools = candidates::pool_docs(docs);
    let errors: Vec<InputError> = settings
        .exclude_node_pools
        .iter()
        .enumerate()
        .filter(|(_, n)| !pools.iter().any(|p| &p.name == *n))
        .map(|(i, n)| {
            let known: Vec<&str> = pools.iter().map(|p| p.name.as_str()).collect();
            InputError::new("unknown-nodepool", format!("NodePool {n:?} is not in the input"))
                .path(format!("advise.excludeNodePools[{i}]"))
                .help(format!("one of {}", known.join(", ")))
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Whether the settings exclude candidate `c`: its kind, or a NodePool it edits or splits.
fn excluded(settings: &AdviseSettings, docs: &[Value], c: &Candidate) -> bool {
    let name = |d: usize| docs.get(d).and_then(|v| v.pointer("/metadata/name")).and_then(Value::as_str).unwrap_or_default();
    settings.exclude_kinds.iter().any(|k| k == c.kind)
        || c.changes.iter().any(|ch| settings.exclude_node_pools.iter().any(|n| n == name(ch.doc())))
}

/// The request's documents (as `load::documents` reads them) and where each came from in the
/// inputs' texts, for patching them.
fn documents(sources: &Sources) -> Result<(Vec<Value>, Vec<apply::Origin>), Vec<InputError>> {
    let mut docs = Vec::new();
    let mut origins = Vec::new();
    for (i, input) in sources.inputs.iter().enumerate() {
        for d in crate::manifest::decode(&input.text, input.name.as_deref())? {
            origins.push(d.prefix.is_empty().then_some((i, d.index)));
            docs.push(d.value.into_owned());
        }
    }
    let objects = Sources { inputs: &[], objects: sources.objects, catalog: sources.catalog, settings: sources.settings };
    for d in crate::load::documents(&objects)? {
        origins.push(None);
        docs.push(d.value.into_owned());
    }
    Ok((docs, origins))
}

/// What a split changes besides the price: the new NodePool's share of the plan, and its limits,
/// which Karpenter counts apart from the original's.
fn split_note(source: &Value, added: &Value, plan: &Plan) -> Vec<String> {
    let name = added.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let from = source.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let claims = plan.node_claims.iter().filter(|c| c.node_pool == name).count();
    let mut out = vec![format!("new NodePool {name} launches {claims} NodeClaim(s); {from} keeps the rest")];
    if source.pointer("/spec/limits").is_some_and(|l| l.as_object().is_some_and(|m| !m.is_empty())) {
        out.push(format!("{name} copies the limits of {from}, counted apart: together they may launch up to twice as much"));
    }
    out
}

/// What an edit changes besides the price.
fn also_changes(base: &Plan, new: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    let on =
        |p: &Plan, ct: &str| p.node_claims.iter().filter(|c| c.capacity_type.as_deref() == Some(ct)).map(|c| c.pods.len()).sum::<usize>();
    let (spot_before, spot_after) = (on(base, "spot"), on(new, "spot"));
    if spot_after > spot_before {
        out.push(format!("{} pod(s) run on spot capacity (was {spot_before}): EC2 can interrupt them", spot_after));
    }
    let (reserved_before, reserved_after) = (on(base, "reserved"), on(new, "reserved"));
    if reserved_after != reserved_before {
        out.push(format!("{reserved_after} pod(s) run in reserved capacity (was {reserved_before})"));
    }
    if base.node_claims.len() != new.node_claims.len() {
        out.push(format!("NodeClaims: {} → {}", base.node_claims.len(), new.node_claims.len()));
    }
    for n in &new.existing_nodes {
        let before = base.existing_nodes.iter().find(|b| b.name == n.name).map_or(0, |b| b.pods.len());
        if n.pods.len() > before {
            out.push(format!("existing node {} takes {} more pod(s): less headroom", n.name, n.pods.len() - before));
        }
    }
    if new.unschedulable.len() < base.unschedulable.len() {
        out.push(format!("{} pod(s) pending before are now scheduled", base.unschedulable.len() - new.unschedulable.len()));
    }
    out
}
