//! Zone constraints inside the optimisation model: topology spreads on the zone (DoNotSchedule,
//! and ScheduleAnyway under the Respect policy) and required pod anti-affinity on the zone.
//! Unlike the hostname rules (`affinity`), these relate pods on different nodes, so they are rows
//! of the integer program over per-(group, zone) pod counts, not rules of one node's contents.
//!
//! Semantics (Karpenter v1.15.0, `provisioning/scheduling/topologygroup.go`, `topology.go`):
//! - a zone spread's domains are the zones the NodePools (those the owner tolerates when it
//!   honours taints) and the existing nodes passing its node filter offer (`topology::group`);
//!   the skew is measured against the least count over the domains the pod's own zone
//!   requirement allows, or 0 when those are fewer than `minDomains` (`domainMinCount`); a pod
//!   may join zone z while `count(z) + self − min ≤ maxSkew` (`nextDomainTopologySpread`).
//!   Only spreads whose every selected pod carries the same spread are modelled: then each
//!   placement checks the rule and counts and the minimum only grow, so Karpenter's in-order
//!   check and the final placement's ("static") rule agree. Any other zone spread keeps its
//!   pods on Karpenter's NodeClaims (`mod.rs`).
//! - required anti-affinity on the zone is checked both ways (the pod's terms and the inverse
//!   groups of placed pods), so in the final placement two pods may not share a zone when
//!   either's term selects the other. Karpenter blocks every zone a NodeClaim could still land
//!   in (`Topology.Record`), which the final placement need not: the model holds the rule a
//!   rescheduled pod is checked against. A pod may only use zones its groups know.
//! - required pod affinity on the zone (`nextDomainAffinity`) admits a pod to a zone that counts
//!   a pod its term selects, or anywhere its groups know when it selects itself and no other
//!   selected pod is placed (the bootstrap). With every other pod in place: the pod's zone holds
//!   another selected pod, unless none exists. A row per (group, zone) with a binary "the group
//!   uses the zone" (the pods its term selects are counted per zone: they become zoned groups).
//! - pods that stay where they are (bound pods, pods Karpenter puts on existing nodes, pods on
//!   kept NodeClaims) count as fixed numbers per zone.

use super::group::Group;
use crate::labels::ValueId;
use crate::model::{AffinityTerm, Model, Pod, PreferencePolicy, SpreadConstraint, Unsatisfiable};
use crate::requirements::{Requirement, Requirements};
use crate::scheduling::claim::Template;
use crate::scheduling::topology::{self, filter_passes, selects, GroupKey, Topology};
use crate::taints::Taint;
use good_lp::{constraint, variable, Constraint, Expression, ProblemVariables, Variable};
use std::collections::{BTreeMap, HashMap};

/// Where pods run in a placement: per node (or NodeClaim), its zone, requirements and taints.
#[derive(Debug, Clone, Default)]
pub struct Placed {
    pub sites: Vec<Site>,
    /// (pod, index into `sites`).
    pub pods: Vec<(usize, usize)>,
}

#[derive(Debug, Clone)]
pub struct Site {
    pub zone: Option<ValueId>,
    pub reqs: Requirements,
    pub taints: Vec<Taint>,
}

impl Site {
    /// A NodeClaim of `template` launched as (`it`, `zone`, `ct`): the template's requirements
    /// narrowed to the offering and the type's labels, the NodePool's taints.
    pub fn claim(m: &Model, t: &Template, it: u32, zone: ValueId, ct: ValueId) -> Site {
        let mut reqs = t.requirements.clone();
        for (k, v) in m.catalog.types[it as usize].labels.iter() {
            reqs.set(k, Requirement::in_values([v]));
        }
        reqs.set(m.keys.zone, Requirement::in_values([zone]));
        reqs.set(m.keys.capacity_type, Requirement::in_values([ct]));
        Site { zone: Some(zone), reqs, taints: m.node_pools[t.pool].taints.clone() }
    }

    pub fn node(m: &Model, n: usize) -> Site {
        let node = &m.nodes[n];
        Site {
            zone: node.labels.get(m.keys.zone),
            reqs: topology::label_requirements(&node.labels, &m.interner),
            taints: node.taints.clone(),
        }
    }
}

impl Placed {
    pub fn add_site(&mut self, site: Site, pods: &[usize]) {
        self.pods.extend(pods.iter().map(|&p| (p, self.sites.len())));
        self.sites.push(site);
    }

    /// The pods that stay in place whatever the optimum does: bound pods of active nodes and
    /// the pods Karpenter puts on existing nodes (`extra`: the kept NodeClaims, added by the caller).
    pub fn fixed(m: &Model, sol: &crate::scheduling::Solution) -> Placed {
        let mut placed = Placed::default();
        let index: HashMap<&str, usize> = m.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
        let mut on: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (p, pod) in m.pods.iter().enumerate().filter(|(_, p)| !p.terminal) {
            if let Some(&n) = pod.node_name.as_deref().and_then(|n| index.get(n)) {
                if !m.nodes[n].marked_for_deletion {
                    on.entry(n).or_default().push(p);
                }
            }
        }
        for (&p, pl) in &sol.placements {
            if let crate::scheduling::Placement::Existing(e) = pl {
                on.entry(sol.existing[*e].node).or_default().push(p);
            }
        }
        for (n, pods) in on {
            placed.add_site(Site::node(m, n), &pods);
        }
        placed
    }
}

/// The zone spreads Karpenter holds for `pod` (DoNotSchedule; ScheduleAnyway under Respect).
pub fn spreads<'a>(pod: &'a Pod, m: &'a Model) -> impl Iterator<Item = &'a SpreadConstraint> {
    let respect = m.settings.preference_policy == PreferencePolicy::Respect;
    pod.spread.iter().filter(move |s| s.key == m.keys.zone && (respect || s.when_unsatisfiable == Unsatisfiable::DoNotSchedule))
}

/// The required anti-affinity terms of `pod` on the zone.
pub fn antis<'a>(pod: &'a Pod, m: &'a Model) -> impl Iterator<Item = &'a AffinityTerm> {
    pod.anti_affinity.iter().filter(move |t| t.key == m.keys.zone)
}

/// The required affinity terms of `pod` on the zone.
pub fn affs<'a>(pod: &'a Pod, m: &'a Model) -> impl Iterator<Item = &'a AffinityTerm> {
    pod.affinity.iter().filter(move |t| t.key == m.keys.zone)
}

/// Does `pod` have a zone rule of its own (spread, anti-affinity or affinity on the zone)?
pub fn has_zone_rule(pod: &Pod, m: &Model) -> bool {
    spreads(pod, m).next().is_some() || antis(pod, m).next().is_some() || affs(pod, m).next().is_some()
}

/// Why a pod's zone rules cannot be modelled, if they cannot: `placed` are the pods Karpenter
/// places on NodeClaims.
pub fn unmodelled(p: usize, m: &Model, sol: &crate::scheduling::Solution, placed: &[usize]) -> Option<&'static str> {
    let pod = &m.pods[p];
    if !has_zone_rule(pod, m) {
        return None;
    }
    if sol.relaxed.contains_key(&p) {
        return Some("zone rules of a pod Karpenter placed only after relaxing its preferences or terms");
    }
    for sc in spreads(pod, m) {
        let def = topology::spread_key(sc, pod);
        let foreign = placed.iter().any(|&q| {
            let other = &m.pods[q];
            selects(&def, other) && !spreads(other, m).any(|s| topology::spread_key(s, other) == def)
        });
        if foreign {
            return Some("zone spread selecting pods that do not carry the same spread");
        }
    }
    None
}

/// Does one of `pod`'s zone spreads select a pod in `pods` (pods that must stay put)?
pub fn spread_selects_any(pod: &Pod, m: &Model, pods: &[usize]) -> bool {
    spreads(pod, m).any(|sc| {
        let def = topology::spread_key(sc, pod);
        pods.iter().any(|&q| selects(&def, &m.pods[q]))
    })
}

/// The zones of a topology group, as Karpenter's scheduler starts it (`Topology::group`).
struct Domains<'a> {
    m: &'a Model,
    topo: Topology,
}

impl<'a> Domains<'a> {
    fn new(m: &'a Model) -> Self {
        let mut topo = Topology::new(m.keys.hostname);
        topo.set_domain_nodes((0..m.nodes.len()).filter(|&n| !m.nodes[n].marked_for_deletion && !m.nodes[n].in_flight).collect());
        Domains { m, topo }
    }

    fn of(&mut self, def: GroupKey, owner: &Pod) -> Vec<ValueId> {
        let g = self.topo.group(def, owner, self.m);
        self.topo.groups[g].counts.keys().copied().collect()
    }
}

/// The pod's own zone requirement (node selector and first required term, as the scheduler's
/// strict view of an unrelaxed pod).
fn pod_zones(pod: &Pod, m: &Model) -> Requirement {
    let mut strict = pod.node_selector.clone();
    if let Some(t) = pod.required_terms.first() {
        strict.add_all(t, &m.interner);
    }
    strict.get(m.keys.zone).cloned().unwrap_or_else(Requirement::exists)
}

/// A zone spread over groups: in every zone of `zones` that holds a member,
/// `count(z) − count(d) ≤ most` for every zone d of `zones` (`count(z) ≤ most` when `min_zero`).
#[derive(Debug, Clone)]
pub struct ZoneSpread {
    pub members: Vec<usize>,
    pub most: i64,
    pub zones: Vec<ValueId>,
    /// Fixed pods counted per zone (indexed like `zones`).
    pub base: Vec<i64>,
    pub min_zero: bool,
}

/// A required zone affinity of group `owner`: in every zone of `zones` it uses, the pods of
/// `members` plus the fixed pods its term selects there (`base`) number at least `least`
/// (2 when the owner's own pods are members: each needs another).
#[derive(Debug, Clone)]
pub struct ZoneNeed {
    pub owner: usize,
    pub members: Vec<usize>,
    pub zones: Vec<ValueId>,
    pub base: Vec<i64>,
    pub least: i64,
}

/// The zone rules of an instance's groups.
#[derive(Debug, Clone, Default)]
pub struct ZoneRules {
    pub spreads: Vec<ZoneSpread>,
    /// Required zone affinities.
    pub needs: Vec<ZoneNeed>,
    /// Groups that may not share a zone (g ≤ h; g == h: at most one pod of g per zone).
    pub apart: Vec<(usize, usize)>,
    /// Per group: the zones it may use, or None when no zone rule touches it.
    pub allowed: Vec<Option<Vec<ValueId>>>,
}

impl ZoneRules {
    pub fn zoned(&self, g: usize) -> bool {
        self.allowed.get(g).is_some_and(Option::is_some)
    }

    pub fn is_empty(&self) -> bool {
        self.allowed.iter().all(Option::is_none)
    }

    /// May group `g` use `zone`?
    pub fn admits(&self, g: usize, zone: ValueId) -> bool {
        match self.allowed.get(g) {
            Some(Some(zones)) => zones.contains(&zone),
            _ => true,
        }
    }
}

fn narrow(allowed: &mut Option<Vec<ValueId>>, to: &[ValueId]) {
    match allowed {
        Some(a) => a.retain(|z| to.contains(z)),
        None => *allowed = Some(to.to_vec()),
    }
}

/// The zone rules among `groups` (each group's first pod stands for it), with `fixed` pods
/// counted where they are.
pub fn rules(m: &Model, groups: &[Group], fixed: &Placed) -> ZoneRules {
    let n = groups.len();
    let reps: Vec<&Pod> = groups.iter().map(|g| &m.pods[g.pods[0]]).collect();
    let mut allowed: Vec<Option<Vec<ValueId>>> = vec![None; n];
    let mut out = ZoneRules::default();
    let mut doms = Domains::new(m);
    let mut seen: HashMap<GroupKey, ()> = HashMap::new();
    for g in 0..n {
        let p = reps[g];
        let own = pod_zones(p, m);
        for sc in spreads(p, m) {
            let def = topology::spread_key(sc, p);
            let zones: Vec<ValueId> = doms.of(def.clone(), p).into_iter().filter(|z| own.has(*z, &m.interner)).collect();
            narrow(&mut allowed[g], &zones);
            if seen.insert(def.clone(), ()).is_some() {
                continue;
            }
            let members: Vec<usize> = (0..n).filter(|&h| selects(&def, reps[h])).collect();
            let base = zones
                .iter()
                .map(|&z| {
                    fixed
                        .pods
                        .iter()
                        .filter(|(q, s)| {
                            let site = &fixed.sites[*s];
                            site.zone == Some(z) && selects(&def, &m.pods[*q]) && filter_passes(&def, &site.reqs, &site.taints, m)
                        })
                        .count() as i64
                })
                .collect();
            let min_zero = zones.is_empty() || sc.min_domains.is_some_and(|md| (zones.len() as i64) < i64::from(md));
            out.spreads.push(ZoneSpread { members, most: i64::from(sc.max_skew.max(0)), zones, base, min_zero });
        }
        for t in antis(p, m) {
            let mine: Vec<ValueId> =
                doms.of(topology::affinity_key(t, true, false), p).into_iter().filter(|z| own.has(*z, &m.interner)).collect();
            narrow(&mut allowed[g], &mine);
            let inverse = doms.of(topology::affinity_key(t, true, true), p);
            for h in 0..n {
                if term_selects(t, reps[h]) {
                    let pair = (g.min(h), g.max(h));
                    if !out.apart.contains(&pair) {
                        out.apart.push(pair);
                    }
                    narrow(&mut allowed[h], &inverse);
                }
            }
        }
    }
    for g in 0..n {
        let p = reps[g];
        let own = pod_zones(p, m);
        for t in affs(p, m) {
            let zones: Vec<ValueId> =
                doms.of(topology::affinity_key(t, false, false), p).into_iter().filter(|z| own.has(*z, &m.interner)).collect();
            narrow(&mut allowed[g], &zones);
            let members: Vec<usize> = (0..n).filter(|&h| term_selects(t, reps[h])).collect();
            let base: Vec<i64> = zones
                .iter()
                .map(|&z| fixed.pods.iter().filter(|(q, s)| fixed.sites[*s].zone == Some(z) && term_selects(t, &m.pods[*q])).count() as i64)
                .collect();
            let mine = members.contains(&g);
            let fixed_any = fixed.pods.iter().any(|(q, _)| term_selects(t, &m.pods[*q]));
            let others = members.iter().map(|&h| groups[h].count() as usize).sum::<usize>() - usize::from(mine);
            if others == 0 && !fixed_any {
                continue; // the pod bootstraps in any zone its groups know
            }
            // The pods it counts are placed per zone: zoned groups (in every zone they may use).
            for &h in &members {
                if allowed[h].is_none() {
                    allowed[h] = Some(doms_all(m, reps[h]));
                }
            }
            out.needs.push(ZoneNeed { owner: g, members, zones, base, least: 1 + i64::from(mine) });
        }
    }
    // Fixed pods repel in their zones, both ways.
    for (q, s) in &fixed.pods {
        let Some(z) = fixed.sites[*s].zone else { continue };
        let other = &m.pods[*q];
        for g in 0..n {
            let p = reps[g];
            if repel(p, other, m) {
                let a = allowed[g].get_or_insert_with(|| doms_all(m, p));
                a.retain(|&w| w != z);
            }
        }
    }
    out.apart.sort_unstable();
    out.allowed = allowed;
    out
}

fn term_selects(t: &AffinityTerm, q: &Pod) -> bool {
    q.in_namespaces(&t.namespaces) && t.selector.matches(&q.labels)
}

/// Do `p` and `q` repel each other in a zone (either's zone anti-affinity selects the other)?
fn repel(p: &Pod, q: &Pod, m: &Model) -> bool {
    antis(p, m).any(|t| term_selects(t, q)) || antis(q, m).any(|t| term_selects(t, p))
}

/// Every zone a pod repelled by a fixed pod (without zone rules of its own) may use: the
/// catalog's and the nodes' zones its own zone requirement allows (its classes narrow them).
fn doms_all(m: &Model, p: &Pod) -> Vec<ValueId> {
    let own = pod_zones(p, m);
    let mut zones: Vec<ValueId> = m
        .catalog
        .types
        .iter()
        .flat_map(|t| t.offerings.iter().map(|o| o.zone))
        .chain(m.nodes.iter().filter_map(|n| n.labels.get(m.keys.zone)))
        .filter(|z| own.has(*z, &m.interner))
        .collect();
    zones.sort_unstable();
    zones.dedup();
    zones
}

/// The integer program's (or, `integral` false, the LP relaxation's) zone rows over `a`, the
/// pods of each (group, zone). Rows the relaxation cannot state without binaries (a spread in a
/// zone that already holds fixed pods, anti-affinity between two groups) are left out of it:
/// fewer rows keep it a relaxation.
pub fn rows(
    z: &ZoneRules,
    groups: &[Group],
    vars: &mut ProblemVariables,
    a: &BTreeMap<(usize, ValueId), Expression>,
    integral: bool,
) -> Vec<Constraint> {
    let mut out = Vec::new();
    let get = |g: usize, zone: ValueId| a.get(&(g, zone)).cloned();
    for s in &z.spreads {
        let total: f64 = s.members.iter().map(|&g| groups[g].count() as f64).sum();
        let count = |i: usize| -> Expression {
            let mut e = Expression::from(s.base[i] as f64);
            for &g in &s.members {
                if let Some(x) = get(g, s.zones[i]) {
                    e += x;
                }
            }
            e
        };
        for (i, &zone) in s.zones.iter().enumerate() {
            let placed: Vec<Expression> = s.members.iter().filter_map(|&g| get(g, zone)).collect();
            if placed.is_empty() {
                continue;
            }
            let mine = count(i);
            // With fixed pods in the zone, the rule binds only when a member joins them.
            let (slack, ok) = if s.base[i] == 0 {
                (Expression::from(0.0), true)
            } else if integral {
                let w: Variable = vars.add(variable().binary());
                let joined: Expression = placed.iter().cloned().sum();
                out.push(constraint!(joined - total * w <= 0.0));
                let big = s.base[i] as f64 + total;
                (big - big * w, true)
            } else {
                (Expression::from(0.0), false)
            };
            if !ok {
                continue;
            }
            if s.min_zero {
                out.push(constraint!(mine.clone() - slack.clone() <= s.most as f64));
                continue;
            }
            for d in (0..s.zones.len()).filter(|&d| d != i) {
                out.push(constraint!(mine.clone() - count(d) - slack.clone() <= s.most as f64));
            }
        }
    }
    let mut zones_of: BTreeMap<usize, Vec<ValueId>> = BTreeMap::new();
    for &(g, zone) in a.keys() {
        zones_of.entry(g).or_default().push(zone);
    }
    // Required zone affinity: a zone the owner uses holds enough of what its term selects. Needs
    // a binary per zone: left out of the relaxation.
    for need in z.needs.iter().filter(|_| integral) {
        for (i, &zone) in need.zones.iter().enumerate() {
            let Some(x) = get(need.owner, zone) else { continue };
            let w: Variable = vars.add(variable().binary());
            out.push(constraint!(x - groups[need.owner].count() as f64 * w <= 0.0));
            let mut there = Expression::from(need.base[i] as f64);
            for &h in &need.members {
                if let Some(y) = get(h, zone) {
                    there += y;
                }
            }
            out.push(constraint!(there - need.least as f64 * w >= 0.0));
        }
    }
    let mut used: BTreeMap<(usize, ValueId), Variable> = BTreeMap::new();
    for &(g, h) in &z.apart {
        for &zone in zones_of.get(&g).map_or(&[][..], Vec::as_slice) {
            if g == h {
                if let Some(x) = get(g, zone) {
                    out.push(constraint!(x <= 1.0));
                }
                continue;
            }
            let (Some(x), Some(y)) = (get(g, zone), get(h, zone)) else { continue };
            if !integral {
                continue;
            }
            let mut flag = |k: usize, e: Expression, out: &mut Vec<Constraint>| {
                *used.entry((k, zone)).or_insert_with(|| {
                    let u = vars.add(variable().binary());
                    out.push(constraint!(e - groups[k].count() as f64 * u <= 0.0));
                    u
                })
            };
            let (u, v) = (flag(g, x, &mut out), flag(h, y, &mut out));
            out.push(constraint!(u + v <= 1.0));
        }
    }
    out
}

/// The first zone rule the pods of `free` break in `placed` (every pod's final place, fixed
/// and optimised), checked pod by pod from the pods' own constraints: the independent check.
pub fn violation(m: &Model, placed: &Placed, free: &[usize]) -> Option<(usize, String)> {
    let zone_of: HashMap<usize, usize> = placed.pods.iter().map(|&(p, s)| (p, s)).collect();
    let mut doms = Domains::new(m);
    let mut spread_counts: HashMap<GroupKey, (Vec<ValueId>, BTreeMap<ValueId, i64>)> = HashMap::new();
    let any_anti = placed.pods.iter().any(|&(q, _)| antis(&m.pods[q], m).next().is_some());
    for &p in free {
        let pod = &m.pods[p];
        let Some(&site) = zone_of.get(&p) else { continue };
        let Some(zone) = placed.sites[site].zone else { continue };
        for sc in spreads(pod, m) {
            let def = topology::spread_key(sc, pod);
            let (zones, counts) = spread_counts.entry(def.clone()).or_insert_with(|| {
                let mut counts = BTreeMap::new();
                for &(q, s) in &placed.pods {
                    let site = &placed.sites[s];
                    if let Some(z) = site.zone {
                        if selects(&def, &m.pods[q]) && filter_passes(&def, &site.reqs, &site.taints, m) {
                            *counts.entry(z).or_insert(0) += 1;
                        }
                    }
                }
                (doms.of(def.clone(), pod), counts)
            });
            if !zones.contains(&zone) {
                return Some((p, format!("pod {} is in zone {}, which its zone spread does not know", pod.key(), m.interner.str(zone))));
            }
            let own = pod_zones(pod, m);
            let mine: Vec<i64> = zones.iter().filter(|z| own.has(**z, &m.interner)).map(|z| counts.get(z).copied().unwrap_or(0)).collect();
            let min = if mine.is_empty() || sc.min_domains.is_some_and(|md| (mine.len() as i64) < i64::from(md)) {
                0
            } else {
                mine.iter().copied().min().unwrap_or(0)
            };
            let here = counts.get(&zone).copied().unwrap_or(0);
            if here - min > i64::from(sc.max_skew) {
                let why = format!(
                    "pod {}'s zone spread (maxSkew {}) counts {here} pods in {} against a minimum of {min}",
                    pod.key(),
                    sc.max_skew,
                    m.interner.str(zone)
                );
                return Some((p, why));
            }
        }
        for t in affs(pod, m) {
            let selected = |(q, s): &&(usize, usize)| *q != p && term_selects(t, &m.pods[*q]) && placed.sites[*s].zone.is_some();
            if placed.pods.iter().filter(selected).any(|(_, s)| placed.sites[*s].zone == Some(zone)) {
                continue;
            }
            // Bootstrap: the pod selects itself and no other selected pod is in a zone it may use.
            let own = pod_zones(pod, m);
            let elsewhere =
                placed.pods.iter().filter(selected).any(|(_, s)| placed.sites[*s].zone.is_some_and(|z| own.has(z, &m.interner)));
            if !term_selects(t, pod) || elsewhere {
                let why = format!("pod {} has no pod its required zone affinity selects in zone {}", pod.key(), m.interner.str(zone));
                return Some((p, why));
            }
        }
        if antis(pod, m).next().is_none() && !any_anti {
            continue;
        }
        for &(q, s) in &placed.pods {
            if q == p || placed.sites[s].zone != Some(zone) {
                continue;
            }
            let other = &m.pods[q];
            if repel(pod, other, m) {
                let why =
                    format!("pods {} and {} share zone {} against a zone anti-affinity", pod.key(), other.key(), m.interner.str(zone));
                return Some((p, why));
            }
        }
    }
    None
}
