//! The `Balanced` consolidation policy (spec disruption.md §16), as Karpenter v1.15.0 decides it
//! (`pkg/controllers/disruption/balanced.go`, `types.go`).
//!
//! A Balanced pool consolidates like WhenEmptyOrUnderutilized, but a multi- or single-node move
//! that touches it must be worth its disruption: the share of the pool's cost the move saves,
//! divided by the share of the pool's disruption cost it causes, must reach 1/k with k = 2.
//! Emptiness and expiration are never scored.
//!
//! The pool's cost: Karpenter reads it from its cluster-cost tracker, the summed offering price
//! of every NodeClaim of the pool that carries instance type, zone and capacity type. Offline
//! the same sum is taken over the pool's nodes' prices (`node_price`); Karpenter's fallback when
//! the tracker says 0 (the summed candidate prices) is then 0 as well, because both look the
//! prices up the same way.

use super::NodeInfo;
use crate::api::{BalancedScore, Reason};
use crate::model::{ConsolidationPolicy, Model};
use crate::price;
use crate::reason::ReasonCode;
use crate::vocab::ScoredMove;

/// Karpenter's `BalancedK`: a move passes when its score is at least 1/k.
pub const K: i32 = 2;

/// Where the pool cost comes from, stated in every score.
pub const POOL_COST_SOURCE: &str = "the summed hourly prices of the pool's nodes (offline stand-in for Karpenter's cluster-cost tracker)";

/// A pool's denominators: its hourly cost and its summed disruption cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Totals {
    pub cost: f64,
    pub disruption: f64,
}

/// Per pool (indexed like `m.node_pools`). Disruption counts every node labelled with the pool,
/// candidate or not: a candidate by its reschedule disruption cost, any other node by the cost
/// cluster state keeps for it (D-16.2).
pub(crate) fn totals(m: &Model, infos: &[NodeInfo]) -> Vec<Totals> {
    let mut out = vec![Totals::default(); m.node_pools.len()];
    for info in infos {
        let Some(p) = info.pool else { continue };
        if m.nodes[info.node].managed {
            out[p].cost += info.price.unwrap_or(0.0);
        }
        out[p].disruption += if info.candidate { info.rdc } else { info.state_cost };
    }
    out
}

/// The two fractions of one move in one pool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Score {
    pub savings: f64,
    pub disruption: f64,
    pub savings_fraction: f64,
    pub disruption_fraction: f64,
    pub totals: Totals,
}

impl Score {
    /// Savings share over disruption share; 0 when nothing is saved. A disruption share of 0
    /// cannot happen (every move's disruption cost is at least 1), but would mean unbounded.
    pub fn value(&self) -> f64 {
        if self.savings_fraction <= 0.0 {
            0.0
        } else if self.disruption_fraction == 0.0 {
            f64::INFINITY
        } else {
            self.savings_fraction / self.disruption_fraction
        }
    }

    pub fn threshold() -> f64 {
        1.0 / f64::from(K)
    }

    pub fn approved(&self) -> bool {
        self.value() >= Self::threshold()
    }

    /// The answer's view; `what` says which move was scored.
    pub fn out(&self, m: &Model, pool: usize, what: ScoredMove) -> BalancedScore {
        let r6 = |x: f64| if x.is_finite() { (x * 1e6).round() / 1e6 } else { x };
        BalancedScore {
            node_pool: m.node_pools[pool].name.clone(),
            scored_move: what,
            score: r6(self.value()),
            threshold: Self::threshold(),
            k: K,
            approved: self.approved(),
            savings_per_hour: price::round_price(self.savings),
            disruption_cost: r6(self.disruption),
            savings_fraction: r6(self.savings_fraction),
            disruption_fraction: r6(self.disruption_fraction),
            pool_cost_per_hour: price::round_price(self.totals.cost),
            pool_disruption_cost: r6(self.totals.disruption),
            pool_cost_source: POOL_COST_SOURCE.to_string(),
        }
    }

    /// The verdict of a rejected move: score, threshold and the numbers behind them.
    pub fn rejection(&self, m: &Model, pool: usize, what: ScoredMove) -> Reason {
        Reason {
            code: ReasonCode::BelowBalancedThreshold,
            node_pool: Some(m.node_pools[pool].name.clone()),
            message: format!(
                "Balanced: {what} scores {:.2} < threshold {:.2} (k {K}): saves {:.1}% of the pool's ${}/h for {:.1}% of its disruption cost {:.2}",
                self.value(),
                Self::threshold(),
                self.savings_fraction * 100.0,
                price::round_price(self.totals.cost),
                self.disruption_fraction * 100.0,
                self.totals.disruption
            ),
        }
    }
}

/// Score a move saving `savings` $/h at disruption cost `disruption` against a pool's totals.
/// Without usable totals both fractions are 0, so the move scores 0 and is rejected.
pub(crate) fn score_move(savings: f64, disruption: f64, totals: Totals) -> Score {
    let (sf, df) =
        if totals.cost <= 0.0 || totals.disruption <= 0.0 { (0.0, 0.0) } else { (savings / totals.cost, disruption / totals.disruption) };
    Score { savings, disruption, savings_fraction: sf, disruption_fraction: df, totals }
}

fn balanced(m: &Model, pool: usize) -> bool {
    m.node_pools[pool].disruption.policy == ConsolidationPolicy::Balanced
}

/// The single-node pre-check: deleting the node outright is the best any move on it can do,
/// so a Balanced candidate whose delete fails the threshold is passed over without simulating.
/// Returns the failing best-case score; `None` lets the candidate through (other policies, or
/// a pool whose cost is unknown).
pub(crate) fn cannot_pass(m: &Model, info: &NodeInfo, totals: &[Totals]) -> Option<Score> {
    let pool = info.pool?;
    if !balanced(m, pool) || totals[pool].cost <= 0.0 {
        return None;
    }
    let s = score_move(info.price.unwrap_or(0.0), info.rdc, totals[pool]);
    (!s.approved()).then_some(s)
}

/// Score a command over `cands` (indices into `infos`) that saves `savings` $/h in all: every
/// Balanced pool among the candidates is scored on its own, with its share of the savings in
/// proportion to its share of the removed nodes' price when the move spans pools. Approved
/// when every Balanced pool approves. Returns the per-pool scores (pools in first-seen order).
pub(crate) fn evaluate(m: &Model, infos: &[NodeInfo], totals: &[Totals], cands: &[usize], savings: f64) -> (bool, Vec<(usize, Score)>) {
    let mut pools: Vec<usize> = Vec::new();
    for &c in cands {
        if let Some(p) = infos[c].pool {
            if !pools.contains(&p) {
                pools.push(p);
            }
        }
    }
    let source: f64 = cands.iter().map(|&c| infos[c].price.unwrap_or(0.0)).sum();
    let mut scores = Vec::new();
    for &p in pools.iter().filter(|&&p| balanced(m, p)) {
        let mine: Vec<usize> = cands.iter().copied().filter(|&c| infos[c].pool == Some(p)).collect();
        let disruption: f64 = mine.iter().map(|&c| infos[c].rdc).sum();
        let pool_source: f64 = mine.iter().map(|&c| infos[c].price.unwrap_or(0.0)).sum();
        let pool_savings = if pools.len() > 1 && source > 0.0 { savings * (pool_source / source) } else { savings };
        scores.push((p, score_move(pool_savings, disruption, totals[p])));
    }
    (scores.iter().all(|(_, s)| s.approved()), scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Totals = Totals { cost: 10.0, disruption: 20.0 };

    #[test]
    fn score_is_savings_share_over_disruption_share() {
        // Saving $2.5 of $10 (25 %) for 4 of 20 disruption (20 %) scores 1.25.
        let s = score_move(2.5, 4.0, T);
        assert!((s.value() - 1.25).abs() < 1e-12);
        assert!(s.approved());
    }

    #[test]
    fn threshold_is_one_over_k_inclusive() {
        assert_eq!(Score::threshold(), 0.5);
        // 10 % savings for 20 % disruption is exactly 0.5: approved (>=).
        let s = score_move(1.0, 4.0, T);
        assert!((s.value() - 0.5).abs() < 1e-12);
        assert!(s.approved());
        let s = score_move(0.99, 4.0, T);
        assert!(!s.approved());
    }

    #[test]
    fn no_savings_or_no_totals_scores_zero() {
        assert_eq!(score_move(0.0, 1.0, T).value(), 0.0);
        assert_eq!(score_move(-1.0, 1.0, T).value(), 0.0);
        assert_eq!(score_move(5.0, 1.0, Totals { cost: 0.0, disruption: 3.0 }).value(), 0.0);
        assert_eq!(score_move(5.0, 1.0, Totals { cost: 3.0, disruption: 0.0 }).value(), 0.0);
        assert!(!score_move(5.0, 1.0, Totals::default()).approved());
    }

    #[test]
    fn zero_disruption_share_is_unbounded() {
        let s = Score { savings: 1.0, disruption: 0.0, savings_fraction: 0.1, disruption_fraction: 0.0, totals: T };
        assert!(s.value().is_infinite());
        assert!(s.approved());
    }
}
