//! From the solver's patterns to NodeClaims with pods, and the answer beside Karpenter's plan.

use super::instance::Instance;
use super::solve::{Outcome, Pattern, Quota};
use super::KarpenterClaim;
use crate::api::Warning;
use crate::model::Model;
use crate::price::round_price;
use crate::scheduling::Solution;
use serde::Serialize;

/// What the solver proved, for the answer: the free pods' outcome and, when NodeClaims are kept,
/// the bound of the whole plan (every pod Karpenter launches for).
pub struct Answer<'a> {
    pub outcome: &'a Outcome,
    pub whole_bound: Option<f64>,
    pub kept_pods: usize,
}

/// One optimised node: its class and the pods on it.
#[derive(Debug, Clone)]
pub struct Node {
    pub class: usize,
    pub pods: Vec<usize>,
}

/// Hours in the month the answers price (as `plan` and `consolidate` do).
pub use crate::figures::HOURS_PER_MONTH;

/// The answer of `optimize`: Karpenter's plan next to the cheapest packing of the same pods, with a bound that certifies how close it is.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Optimization {
    /// $/h of the NodeClaims Karpenter's plan launches.
    pub karpenter_price_per_hour: f64,
    /// $/h of the cheapest NodeClaims found for the same pods.
    pub optimum_price_per_hour: f64,
    /// No placement of these pods costs less: it covers every pod, those on kept NodeClaims
    /// included (LP relaxation, or a proven optimum of a relaxation).
    pub lower_bound_per_hour: f64,
    /// `optimal` (only when the whole plan is proven optimal), or `within x % of optimal`
    /// (the gap of `optimumPricePerHour` to the bound).
    pub certificate: String,
    /// (optimum − bound) / optimum, in percent (0 when proven optimal).
    pub gap_percent: f64,
    /// `karpenterPricePerHour − optimumPricePerHour`: what the optimum saves, $/h.
    pub savings_per_hour: f64,
    /// Savings × 730 h.
    pub savings_per_month: f64,
    /// The optimum's NodeClaims (kept ones marked `kept`), cheapest plan first by pool.
    pub node_claims: Vec<OptimizedClaim>,
    /// Karpenter's NodeClaims, in the same shape.
    pub karpenter_node_claims: Vec<OptimizedClaim>,
    /// Pods whose NodePool, instance type, capacity type or zone differ between the two.
    pub moved_pods: Vec<PodMove>,
    /// Pods the optimum puts on existing nodes' free room: Karpenter's placements there that it keeps, and pods the model gives that room.
    pub pods_on_existing_nodes: Vec<String>,
    /// Pods Karpenter leaves pending (left out of both sides).
    pub unschedulable: Vec<String>,
    /// Constraints the optimiser does not optimise for, and what it does with them instead.
    pub not_optimised: Vec<String>,
    /// Pods that keep Karpenter's NodeClaims (the `kept` ones): the reasons are in `notOptimised`.
    pub kept_pods: usize,
    /// Size of the problem solved and how the solver ended.
    pub stats: Stats,
    /// Non-fatal findings about the input.
    pub warnings: Vec<Warning>,
    /// The running cluster's optimum beside Karpenter's consolidation (`optimize.running`):
    /// the fields above then speak of the pods of the nodes it may remove.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<super::running_answer::RunningCluster>,
    /// (pod, existing node) for every pod of `podsOnExistingNodes`: where the running case
    /// puts them (not in the answer: `running.nodes` says it per node).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub(crate) existing_placements: Vec<(String, String)>,
}

/// One NodeClaim of the optimum or of Karpenter's plan.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptimizedClaim {
    /// The NodeClaim's name, `<nodepool>-<n>`.
    pub name: String,
    /// The NodePool it is launched from.
    pub node_pool: String,
    /// The instance type launched.
    pub instance_type: String,
    #[cfg_attr(feature = "schema", schemars(with = "crate::reason::CapacityType"))]
    /// `on-demand`, `spot` or `reserved`.
    pub capacity_type: String,
    /// The availability zone.
    pub zone: String,
    /// $/h of the offering (a reserved one: on-demand / 10,000,000, as Karpenter prices it).
    pub price_per_hour: f64,
    /// The capacity reservation it launches into (capacity type `reserved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reservation_id: Option<String>,
    /// The pods it takes, as `namespace/name`.
    pub pods: Vec<String>,
    /// Karpenter's NodeClaim, kept as it is (its pods carry constraints not optimised).
    pub kept: bool,
}

/// A pod placed differently by Karpenter and by the optimum.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMove {
    /// The pod, as `namespace/name`.
    pub pod: String,
    /// `nodeclaim-name (pool, type, capacity type, zone)` on each side.
    pub karpenter: String,
    /// Where the optimum puts it, in the same form as `karpenter`.
    pub optimum: String,
}

/// How big the optimised problem was and how the solver ended.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Pods optimised, grouped into this many groups of identical pods.
    pub pods: usize,
    /// Groups of identical pods (same requests and constraints) the pods fall into.
    pub groups: usize,
    /// Offerings (NodePool, type, capacity type, zone) left after dominance.
    pub offerings: usize,
    /// Node packing patterns (instance class and pods per group) given to the integer program.
    pub patterns: usize,
    /// Every maximal packing pattern was listed (the integer program is the whole problem).
    pub exhaustive: bool,
    /// The solver's time budget ran out; the answer is the best packing so far.
    pub timed_out: bool,
}

/// Turn chosen patterns into nodes with pods: groups' pods in index order, nodes in pattern
/// order; covering rows may over-cover, so surplus slots stay empty and empty nodes vanish.
/// Each node then moves to the cheapest class of its pool that holds its pods and uses no
/// more of any limit (never dearer).
/// A group with zone rules takes, per zone, the pods the integer program put there (`quota`;
/// without an entry, as many as its slots hold), and a node holding such pods keeps its zone.
/// The nodes' contents are then put in canonical form (`canonical::repack`), so that equally
/// cheap answers of different solvers give the same plan, and each group's pods are dealt out
/// in index order over the nodes in that order.
pub fn assign(inst: &Instance, chosen: &[(Pattern, u32)], quota: &Quota) -> Vec<Node> {
    let mut next = vec![0usize; inst.groups.len()];
    let mut left = quota.clone();
    let mut slots: Vec<super::canonical::Slot> = Vec::new();
    for (p, n) in chosen {
        let zone = inst.classes[p.class].zone;
        for _ in 0..*n {
            let mut counts = vec![0u32; inst.groups.len()];
            for (g, &want) in p.counts.iter().enumerate() {
                let group = &inst.groups[g];
                let mut take = (want as usize).min(group.pods.len() - next[g]);
                if let Some(q) = left.get_mut(&(g, zone)) {
                    take = take.min(*q as usize);
                    *q -= take as u32;
                }
                counts[g] = take as u32;
                next[g] += take;
            }
            if counts.iter().all(|&k| k == 0) {
                continue;
            }
            slots.push((cheapest(inst, p.class, &counts), counts));
        }
    }
    let mut next = vec![0usize; inst.groups.len()];
    super::canonical::repack(inst, slots)
        .into_iter()
        .map(|(class, counts)| {
            let mut pods = Vec::new();
            for (g, &k) in counts.iter().enumerate() {
                pods.extend_from_slice(&inst.groups[g].pods[next[g]..next[g] + k as usize]);
                next[g] += k as usize;
            }
            pods.sort_unstable();
            Node { class: cheapest(inst, class, &counts), pods }
        })
        .collect()
}

/// The cheapest class of `class`'s pool (lowest index among equals) that holds `counts`, in
/// its zone when they include pods with zone rules, and uses no more of any limit; an
/// existing node's room stays that node.
fn cheapest(inst: &Instance, class: usize, counts: &[u32]) -> usize {
    let here = &inst.classes[class];
    let zoned = counts.iter().enumerate().any(|(g, &k)| k > 0 && inst.rules.zones.zoned(g));
    (0..inst.classes.len())
        .filter(|_| here.existing.is_none())
        .filter(|&k| {
            let c = &inst.classes[k];
            c.pool == here.pool
                && c.existing.is_none()
                && (c.zone == here.zone || !zoned)
                && c.limit_use.iter().zip(&here.limit_use).all(|(a, b)| a <= b)
                && super::solve::fits(inst, c, counts)
        })
        .min_by(|&a, &b| inst.classes[a].price.total_cmp(&inst.classes[b].price).then(a.cmp(&b)))
        .unwrap_or(class)
}

fn describe(name: &str, pool: &str, it: &str, ct: &str, zone: &str) -> String {
    format!("{name} ({pool}, {it}, {ct}, {zone})")
}

#[allow(clippy::too_many_arguments)]
pub fn render(
    m: &Model,
    inst: &Instance,
    claims: &[KarpenterClaim],
    kept: &[bool],
    nodes: &[Node],
    answer: &Answer,
    not_optimised: Vec<String>,
    sol: &Solution,
) -> Optimization {
    let key = |p: usize| m.pods[p].key();
    let out_of = |claim: &KarpenterClaim, name: String, kept: bool| {
        let l = claim.launch.as_ref();
        OptimizedClaim {
            name,
            node_pool: m.node_pools[claim.pool].name.clone(),
            instance_type: l.map(|l| m.catalog.types[l.it as usize].name.clone()).unwrap_or_default(),
            capacity_type: l.map(|l| m.interner.str(l.capacity_type).to_string()).unwrap_or_default(),
            zone: l.map(|l| m.interner.str(l.zone).to_string()).unwrap_or_default(),
            price_per_hour: round_price(l.map_or(0.0, |l| l.price)),
            reservation_id: l.and_then(|l| l.reservation).map(|r| m.reservations[r as usize].id.clone()),
            pods: {
                let mut p: Vec<String> = claim.pods.iter().map(|&p| key(p)).collect();
                p.sort();
                p
            },
            kept,
        }
    };
    let karpenter: Vec<OptimizedClaim> = claims.iter().map(|c| out_of(c, c.name.clone(), false)).collect();
    // The optimum: kept claims first (Karpenter's names), then new ones named per pool in a
    // canonical order (pool order, type, capacity type, zone, first pod).
    let mut optimum: Vec<OptimizedClaim> =
        claims.iter().zip(kept).filter(|(_, k)| **k).map(|(c, _)| out_of(c, c.name.clone(), true)).collect();
    let pool_rank: std::collections::HashMap<usize, usize> = m.pool_order().into_iter().enumerate().map(|(i, p)| (p, i)).collect();
    let mut fresh: Vec<OptimizedClaim> = nodes
        .iter()
        .filter(|n| inst.classes[n.class].existing.is_none())
        .map(|n| {
            let c = &inst.classes[n.class];
            let mut pods: Vec<String> = n.pods.iter().map(|&p| key(p)).collect();
            pods.sort();
            OptimizedClaim {
                name: String::new(),
                node_pool: m.node_pools[c.pool].name.clone(),
                instance_type: m.catalog.types[c.it as usize].name.clone(),
                capacity_type: m.interner.str(c.capacity_type).to_string(),
                zone: m.interner.str(c.zone).to_string(),
                price_per_hour: round_price(c.price),
                reservation_id: c.reservation.map(|r| m.reservations[r as usize].id.clone()),
                pods,
                kept: false,
            }
        })
        .collect();
    let rank =
        |c: &OptimizedClaim| m.node_pools.iter().position(|p| p.name == c.node_pool).and_then(|p| pool_rank.get(&p).copied()).unwrap_or(0);
    fresh.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| a.instance_type.cmp(&b.instance_type))
            .then_with(|| a.capacity_type.cmp(&b.capacity_type))
            .then_with(|| a.zone.cmp(&b.zone))
            .then_with(|| a.reservation_id.cmp(&b.reservation_id))
            .then_with(|| a.pods.cmp(&b.pods))
    });
    let mut per_pool: std::collections::HashMap<String, usize> = Default::default();
    for c in optimum.iter() {
        // Kept claims hold their Karpenter numbers; new ones continue after the largest.
        let n: usize = c.name.rsplit('-').next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let e = per_pool.entry(c.node_pool.clone()).or_insert(0);
        *e = (*e).max(n);
    }
    for c in fresh.iter_mut() {
        let e = per_pool.entry(c.node_pool.clone()).or_insert(0);
        *e += 1;
        c.name = format!("{}-opt-{}", c.node_pool, e);
    }
    optimum.extend(fresh);
    let karpenter_price = round_price(karpenter.iter().map(|c| c.price_per_hour).sum());
    let optimum_price = round_price(optimum.iter().map(|c| c.price_per_hour).sum());
    let outcome = answer.outcome;
    // Kept NodeClaims cost what Karpenter pays for them (launch-less ones nothing): without
    // any, the free pods' bound is the whole plan's; with some, only the whole plan's bound is.
    let (bound, proven) = match answer.whole_bound {
        None => (round_price(outcome.lower_bound.min(optimum_price)), outcome.proven),
        Some(b) => {
            let b = round_price(b.min(optimum_price));
            (b, optimum_price - b <= 1e-9 * optimum_price.max(1.0))
        }
    };
    let gap = if optimum_price > 0.0 && !proven { ((optimum_price - bound) / optimum_price * 100.0).max(0.0) } else { 0.0 };
    let gap = (gap * 1e4).round() / 1e4;
    let certificate = match &outcome.karpenter_plan {
        Some(why) => format!("Karpenter's plan: the solver found no packing within its budget ({why})"),
        None if proven || gap == 0.0 => "optimal".to_string(),
        None => format!("within {gap:.2} % of optimal"),
    };
    // Where each pod is on each side: (what the node is, its description). Two NodeClaims of
    // one offering are the same; an existing node is itself.
    type Side = std::collections::BTreeMap<String, (String, String)>;
    let claim_side = |side: &mut Side, cs: &[OptimizedClaim]| {
        for c in cs {
            let what = format!("{}/{}/{}/{}/{:?}", c.node_pool, c.instance_type, c.capacity_type, c.zone, c.reservation_id);
            let desc = describe(&c.name, &c.node_pool, &c.instance_type, &c.capacity_type, &c.zone);
            for p in &c.pods {
                side.insert(p.clone(), (what.clone(), desc.clone()));
            }
        }
    };
    let existing_desc = |name: &str| (format!("node/{name}"), format!("{name} (existing node)"));
    let in_model: std::collections::HashSet<usize> = inst.groups.iter().flat_map(|g| g.pods.iter().copied()).collect();
    let (mut k_side, mut o_side) = (Side::new(), Side::new());
    claim_side(&mut k_side, &karpenter);
    claim_side(&mut o_side, &optimum);
    let mut existing_placements: Vec<(String, String)> = Vec::new();
    for (&p, pl) in &sol.placements {
        if let crate::scheduling::Placement::Existing(e) = pl {
            let name = &m.nodes[sol.existing[*e].node].name;
            k_side.insert(key(p), existing_desc(name));
            if !in_model.contains(&p) {
                existing_placements.push((key(p), name.clone()));
            }
        }
    }
    for n in nodes {
        if let Some(b) = inst.classes[n.class].existing {
            let name = &m.nodes[inst.bins[b].node].name;
            existing_placements.extend(n.pods.iter().map(|&p| (key(p), name.clone())));
        }
    }
    existing_placements.sort();
    for (p, name) in &existing_placements {
        o_side.insert(p.clone(), existing_desc(name));
    }
    let mut moved: Vec<PodMove> = o_side
        .iter()
        .filter_map(|(p, (what, desc))| {
            let (k_what, k_desc) = k_side.get(p)?;
            (k_what != what).then(|| PodMove { pod: p.clone(), karpenter: k_desc.clone(), optimum: desc.clone() })
        })
        .collect();
    moved.sort_by(|a, b| a.pod.cmp(&b.pod));
    let on_existing: Vec<String> = existing_placements.iter().map(|(p, _)| p.clone()).collect();
    let mut unschedulable: Vec<String> = sol.failures.iter().map(|(p, _)| key(*p)).collect();
    unschedulable.sort();
    let savings = round_price(karpenter_price - optimum_price);
    Optimization {
        karpenter_price_per_hour: karpenter_price,
        optimum_price_per_hour: optimum_price,
        lower_bound_per_hour: bound,
        certificate,
        gap_percent: gap,
        savings_per_hour: savings,
        savings_per_month: round_price(savings * HOURS_PER_MONTH),
        node_claims: optimum,
        karpenter_node_claims: karpenter,
        moved_pods: moved,
        pods_on_existing_nodes: on_existing,
        unschedulable,
        not_optimised,
        kept_pods: answer.kept_pods,
        stats: Stats {
            pods: inst.groups.iter().map(|g| g.pods.len()).sum(),
            groups: inst.groups.len(),
            offerings: inst.classes.iter().filter(|c| c.existing.is_none()).count(),
            patterns: outcome.patterns,
            exhaustive: outcome.proven && answer.whole_bound.is_none(),
            timed_out: outcome.timed_out,
        },
        warnings: Vec::new(),
        running: None,
        existing_placements,
    }
}
