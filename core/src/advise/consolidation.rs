//! `advise` for the running cluster (`advise.running`): edits to a NodePool's consolidation
//! settings — `consolidationPolicy`, `consolidateAfter`, disruption `budgets` — each verified
//! by replaying Karpenter's consolidation on the edited inputs (`consolidate` at `now`, then
//! pass after pass for a day, `simulate::consolidation_sequence`). An edit is answered only
//! when the cluster Karpenter leaves at the end of that day is strictly cheaper than without
//! it and no pod is left pending; the gap it closes is measured against the running-cluster
//! optimum (`optimize.running`).
//!
//! The candidates, per dynamic NodePool that has nodes: `WhenEmpty` → `WhenEmptyOrUnderutilized`;
//! a `consolidateAfter` of `Never` or above [`LONG_AFTER`] → 5m (for `WhenEmpty` pools only
//! together with the policy, as Karpenter consolidates underutilised nodes only under it); a
//! budget of `nodes: "0"` (or `0%`) → Karpenter's default `10%` (the whole list replaced, so
//! a schedule that blocks at other times is dropped too: said in the title); and all three
//! together.

use super::candidates::{pool_docs, Candidate};
use super::{Advice, AdviseSettings, AdviseStats, Advised, Change, PlanSummary, Risk};
use crate::api::Warning;
use crate::edit;
use crate::error::InputError;
use crate::load::Sources;
use crate::model::{ConsolidationPolicy, Model};
use crate::optimize::{OptimizeSettings, HOURS_PER_MONTH};
use crate::price::round_price;
use crate::reason::RiskLevel;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// A `consolidateAfter` longer than this (seconds) is proposed shorter.
pub const LONG_AFTER: i64 = 3600;

/// The shorter `consolidateAfter` proposed.
const SHORT_AFTER: &str = "5m";

fn set(doc: usize, path: &str, value: Value) -> Change {
    Change::Set { doc, path: edit::parse(path).expect("a fixed, valid path"), value }
}

/// A budget list that blocks every disruption some of the time (`nodes: "0"` or `"0%"`).
fn blocks(budgets: Option<&Value>) -> bool {
    budgets
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|b| matches!(b.get("nodes").and_then(Value::as_str).map(str::trim), Some("0") | Some("0%"))))
}

/// The consolidation edits for the pools of `m` that have nodes, in document order.
pub fn generate(m: &Model, docs: &[Value]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for pd in pool_docs(docs) {
        let Some(np) = m.node_pools.iter().find(|p| p.name == pd.name) else { continue };
        if np.is_static || !m.nodes.iter().any(|n| n.nodepool.as_deref() == Some(np.name.as_str())) {
            continue;
        }
        let disruption = docs[pd.doc].pointer("/spec/disruption");
        let when_empty = np.disruption.policy == ConsolidationPolicy::WhenEmpty;
        let long_after = np.disruption.consolidate_after.is_none_or(|a| a > LONG_AFTER);
        let blocked = blocks(disruption.and_then(|d| d.get("budgets")));
        let mut all: Vec<Change> = Vec::new();
        let mut titles: Vec<String> = Vec::new();
        let policy = set(pd.doc, "spec.disruption.consolidationPolicy", json!("WhenEmptyOrUnderutilized"));
        let after = set(pd.doc, "spec.disruption.consolidateAfter", json!(SHORT_AFTER));
        let budget = set(pd.doc, "spec.disruption.budgets", json!([{"nodes": "10%"}]));
        if when_empty {
            let mut changes = vec![policy.clone()];
            let mut title = format!("{}: consolidate underutilised nodes too (consolidationPolicy WhenEmptyOrUnderutilized)", pd.name);
            if long_after {
                changes.push(after.clone());
                title.push_str(&format!(", after {SHORT_AFTER}"));
            }
            out.push(Candidate { kind: "consolidation-policy", title: title.clone(), changes: changes.clone() });
            all.extend(changes);
            titles.push(title);
        } else if long_after {
            let title = format!("{}: consolidateAfter {SHORT_AFTER}", pd.name);
            out.push(Candidate { kind: "consolidate-after", title: title.clone(), changes: vec![after.clone()] });
            all.push(after);
            titles.push(title);
        }
        if blocked {
            let title =
                format!("{}: disruption budgets [nodes: 10%] (Karpenter's default; replaces every budget, schedules included)", pd.name);
            out.push(Candidate { kind: "disruption-budget", title: title.clone(), changes: vec![budget.clone()] });
            all.push(budget);
            titles.push(title);
        }
        if titles.len() > 1 {
            out.push(Candidate { kind: "combined", title: titles.join(" + "), changes: all });
        }
    }
    out
}

/// The cluster Karpenter's consolidation leaves: its command at `now` and the day of passes.
type Replay = (crate::api::Decision, crate::api::ConsolidationSequence);

/// Karpenter's consolidation on `m` (loaded from `s`) at `now`, then for a day.
fn replay(s: &Sources, m: &Model, warnings: &[Warning], now: i64) -> Result<Replay, Vec<InputError>> {
    let mut model = crate::catalog::resolve::at_time(m, Some(now));
    // As `Cluster::consolidate_at`: emptiness spares the nodes buffer pods were put on.
    if !model.capacity_buffers.is_empty() {
        let hosts = crate::capacity_buffers::hosts(&model);
        model.to_mut().buffer_hosts = hosts;
    }
    let text = crate::simulate::rfc3339(now);
    let decision = crate::disruption::consolidate(&model, warnings, now, &text)?;
    let until = now + 86_400;
    let seq = crate::simulate::consolidation_sequence(s, &model, warnings, now, until, &crate::simulate::rfc3339(until), None)?;
    Ok((decision, seq))
}

/// The cluster at the end of a replay, as advise summarises a plan.
fn summary(r: &Replay) -> PlanSummary {
    PlanSummary {
        price_per_hour: r.1.price_per_hour_at_until,
        node_claims: r.1.nodes_at_until.len(),
        launches: r.1.steps.iter().map(|s| s.command.clone()).collect(),
        unschedulable: r.1.pending_pods_at_until,
    }
}

/// `advise` with `advise.running`: consolidation edits verified by replaying Karpenter's
/// consolidation (see the module's doc).
pub fn advise_running(
    sources: &Sources,
    m: &Model,
    warnings: &[Warning],
    settings: &AdviseSettings,
    now: i64,
    top: usize,
    max_risk: RiskLevel,
) -> Result<Advice, Vec<InputError>> {
    let budget = settings.time_budget_seconds;
    let out_of_time = || budget.zip(crate::interrupt::seconds()).is_some_and(|(b, t)| t >= b);
    let now_text = crate::simulate::rfc3339(now);
    let opt_settings = OptimizeSettings { time_budget_seconds: budget.map(|b| b / 2.0), running: true, ..Default::default() };
    let opt = crate::optimize::optimize(m, warnings, &opt_settings, Some((now, &now_text)))?;
    let running = opt.running.clone().unwrap_or_default();
    let (docs, origins) = super::documents(sources)?;
    super::check_pools(settings, &docs)?;
    let base = replay(sources, m, warnings, now)?;
    let base_price = base.1.price_per_hour_at_until;
    let mut cands = generate(m, &docs);
    cands.retain(|c| !super::excluded(settings, &docs, c));
    cands.truncate(super::MAX_CANDIDATES);
    let mut stats = AdviseStats { candidate_limit: super::MAX_CANDIDATES, candidates: cands.len(), ..Default::default() };
    let mut verified: Vec<(Candidate, Replay)> = Vec::new();
    for c in cands {
        if out_of_time() {
            stats.unverified += 1;
            continue;
        }
        let mut edited = docs.clone();
        if c.changes.iter().any(|ch| ch.apply(&mut edited).is_err()) {
            stats.invalid += 1;
            continue;
        }
        let s = Sources { inputs: &[], objects: &edited, catalog: sources.catalog, settings: sources.settings };
        let Some(r) = crate::load::model(&s).ok().and_then(|(model, w)| replay(&s, &model, &w, now).ok()) else {
            stats.invalid += 1;
            continue;
        };
        let leaves_pending = r.1.pending_pods_at_until > base.1.pending_pods_at_until;
        let cheaper = r.1.price_per_hour_at_until < base_price - 1e-9;
        stats.tally(&mut verified, (c, r), leaves_pending, cheaper, |kept, _, r| kept.iter().any(|(_, v)| summary(v) == summary(r)));
    }
    // Most saving first; equal savings keep the generation order (simplest first).
    verified.sort_by(|a, b| a.1 .1.price_per_hour_at_until.total_cmp(&b.1 .1.price_per_hour_at_until));
    let risk = Risk {
        level: RiskLevel::Low,
        reasons: vec!["Karpenter removes or replaces nodes sooner: their pods are evicted and restarted elsewhere (PDBs and do-not-disrupt still hold)".into()],
    };
    let gap = round_price(base_price - running.optimum_price_per_hour);
    let texts: Vec<(Option<&str>, &str)> = sources.inputs.iter().map(|i| (i.name.as_deref(), i.text.as_str())).collect();
    let mut applied = None;
    let advice: Vec<Advised> = verified
        .iter()
        .filter(|_| risk.level <= max_risk)
        .take(top)
        .enumerate()
        .map(|(i, (c, r))| {
            let saved = round_price(base_price - r.1.price_per_hour_at_until);
            let mut edited = docs.clone();
            for ch in &c.changes {
                ch.apply(&mut edited).expect("applied once already");
            }
            let touched: BTreeSet<usize> = c.changes.iter().map(Change::doc).collect();
            let diff: String = touched.iter().map(|&d| super::diff::unified(&docs[d], &edited[d])).collect();
            let files = super::apply::edit_texts(&texts, &origins, &docs, &c.changes, &edited);
            let patch = files.as_ref().map(|f| super::apply::patch(&texts, f));
            if settings.apply == Some(i + 1) {
                applied = Some((files, patch.clone()));
            }
            Advised {
                rank: i + 1,
                risk: risk.clone(),
                kind: c.kind.to_string(),
                title: c.title.clone(),
                edits: c.changes.iter().map(|ch| ch.out(&docs)).collect(),
                diff,
                patch,
                plan: summary(r),
                savings_per_hour: saved,
                savings_per_month: round_price(saved * HOURS_PER_MONTH),
                gap_recovered_percent: (gap > 0.0).then(|| (saved / gap * 1000.0).round() / 10.0),
                also_changes: vec![
                    format!("Karpenter's command at {now_text}: {} (without the edit: {})", r.0.command, base.0.command),
                    format!(
                        "nodes running a day later: {} (without the edit: {}), after {} command(s)",
                        r.1.nodes_at_until.len(),
                        base.1.nodes_at_until.len(),
                        r.1.steps.len()
                    ),
                ],
            }
        })
        .collect();
    let applied = super::applied_or_error(settings.apply, applied, advice.len())?;
    let mut notes = vec![format!(
        "running cluster at {now_text}: searched consolidationPolicy (WhenEmpty → WhenEmptyOrUnderutilized), consolidateAfter (Never or above {LONG_AFTER} s → {SHORT_AFTER}) and disruption budgets that block every disruption (→ nodes 10%), per NodePool with nodes, and each pool's edits together; each verified by Karpenter's consolidation at now and pass after pass for a day; `plan` is the cluster a day later and `launches` its commands"
    )];
    if stats.unverified > 0 {
        notes.push(format!(
            "time budget: the call's {} s ran out with {} edit(s) unverified; a larger timeBudgetSeconds verifies the rest",
            budget.unwrap_or_default(),
            stats.unverified
        ));
    }
    notes.extend(opt.not_optimised.iter().map(|n| format!("optimize: {n}")));
    Ok(Advice {
        karpenter_price_per_hour: base_price,
        optimum_price_per_hour: running.optimum_price_per_hour,
        optimum_certificate: running.certificate,
        gap_per_hour: gap,
        advice,
        stats,
        notes,
        warnings: warnings.to_vec(),
        applied,
    })
}
