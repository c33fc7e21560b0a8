//! Whether a pod can join a NodeClaim (new or open): taints, requirements, topology domains,
//! host ports, instance types, minValues and DRA devices, before the reservation step.
//!
//! Where Karpenter picks one topology domain out of several in Go map order (a spread's equally
//! least-populated domains, a self-selecting affinity's bootstrap), any of them is one of
//! Karpenter's possible runs, but not equally often: Go walks a set of at most 8 values from a
//! random one of 8 slots, wrapping, so the value the set holds first comes first most often
//! (7 times in 8 among two). nodecast takes the likeliest by the walk's start slots
//! ([`likeliest_first`] over `NodePool::listed_order`: the first the claim's NodePool lists,
//! for up to 5 values), else the first by name (docs/karpenter-fidelity.md section 56). When that pick leaves the pod unplaceable on the claim (no instance type, e.g.
//! the zone has no available offering; or a later group of the pod, e.g. an anti-affinity to
//! the jobs holding that zone, refuses it) while another of the domains would not, Karpenter
//! places the pod on every run whose map order starts elsewhere, and again on a later pass when
//! an unlucky one did not; nodecast then takes the first such domain in the same order. The tie
//! is disclosed either way (`PlannedClaim::ties`).

use super::claim::{self, PlannedClaim};
use super::topology;
use super::view::View;
use super::{dra, Fail, Solver};
use crate::labels::{KeyId, ValueId};
use crate::model::{MinValuesPolicy, Pod};
use crate::requirements::{Requirement, Requirements};
use crate::taints::first_untolerated;

/// A pod's admission: the claim's requirements with it, the instance types left, the ties.
pub(super) type Admitted = (Requirements, Vec<u32>, claim::Ties);

impl Solver<'_> {
    /// [`Solver::can_add`] without the reservation step: everything it reads is the claim's
    /// state and the pod's view (and, for topology, the group counts). A failure after a tied
    /// domain pick is tried again with each of the other tied domains (module comment); at most
    /// one group's ties are tried, so the cost is bounded by the number of its domains.
    pub(super) fn can_add_base(&self, claim: &PlannedClaim, pod: &Pod, view: &View, new_claim: bool) -> Result<Admitted, Fail> {
        let mut alternatives = None;
        match (self.admit_once(claim, pod, view, new_claim, None, &mut alternatives), alternatives) {
            (Err(fail), Some((at, others))) => {
                others.into_iter().find_map(|d| self.admit_once(claim, pod, view, new_claim, Some((at, d)), &mut None).ok()).ok_or(fail)
            }
            (first, _) => first,
        }
    }

    /// One try of [`Solver::can_add_base`]: `forced` replaces the domain nodecast picks for the
    /// pod's `view.groups[at]`; the first group whose pick was tied leaves its other domains
    /// in `alternatives`.
    fn admit_once(
        &self,
        claim: &PlannedClaim,
        pod: &Pod,
        view: &View,
        new_claim: bool,
        forced: Option<(usize, ValueId)>,
        alternatives: &mut Option<(usize, Vec<ValueId>)>,
    ) -> Result<Admitted, Fail> {
        let m = self.m;
        // A full claim is rejected on resources alone, before requirement and topology work.
        // `Fail::Resources` comes from this check only (`scan` relies on it).
        if !new_claim && !claim.headroom.admits(&claim.requests, &pod.requests, m) {
            return Err(Fail::Resources);
        }
        let t = &self.templates[claim.template];
        let np = &m.node_pools[t.pool];
        if let Some(taint) = first_untolerated(&np.taints, &view.tolerations) {
            return Err(Fail::Taint(taint.clone()));
        }
        if !new_claim {
            if let Some((kind, key)) = self.rejects_on_topology(claim, view) {
                return Err(Fail::Topology { kind, key });
            }
        }
        let allow = |k: KeyId| m.is_well_known(k);
        claim.requirements.compatible(&view.full, allow, &m.interner).map_err(Fail::Requirements)?;
        let mut r = claim.requirements.clone();
        r.add_all(&view.full, &m.interner);
        let mut ties = claim::Ties::new();
        for (at, &(g, selects)) in view.groups.iter().enumerate() {
            let group = &self.topo.groups[g];
            let key = group.def.key;
            let exists = Requirement::exists();
            let pod_domains = view.strict.get(key).unwrap_or(&exists);
            let node_domains = r.get(key).unwrap_or(&exists);
            let Some(mut req) = self.topo.next_domain_of(g, pod_domains, node_domains, selects, &m.interner) else {
                return Err(Fail::Topology { kind: group.def.kind, key });
            };
            if topology::single(&req).is_some() {
                let tied = topology::tied_domains(group, m.keys.hostname, pod_domains, node_domains, selects, &m.interner);
                if !tied.is_empty() {
                    // Karpenter's likeliest pick first (module comment), then the others.
                    // The set Karpenter walks holds the listed values the claim still allows.
                    let held: Vec<ValueId> = np.listed_order(key).iter().copied().filter(|&v| node_domains.has(v, &m.interner)).collect();
                    let order = likeliest_first(&tied, &held, |d| m.interner.str(d));
                    match forced {
                        Some((f, d)) if f == at => req = Requirement::in_values([d]),
                        _ => {
                            req = Requirement::in_values([order[0]]);
                            if alternatives.is_none() {
                                *alternatives = Some((at, order[1..].to_vec()));
                            }
                        }
                    }
                    ties.push((key, order));
                }
            }
            let mut extra = Requirements::new();
            extra.set(key, req);
            r.compatible(&extra, allow, &m.interner).map_err(|_| Fail::Topology { kind: group.def.kind, key })?;
            r.add_all(&extra, &m.interner);
        }
        if pod.host_ports.iter().any(|a| claim.host_ports.iter().any(|b| a.conflicts(b))) {
            return Err(Fail::HostPort);
        }
        let total = claim.requests.plus(&pod.requests);
        // A fresh claim's candidates were never filtered by its requirements.
        let known = if new_claim {
            claim::Known::NOTHING
        } else {
            claim::Known { unchanged: r == claim.requirements, least_room: claim.headroom.least() }
        };
        let its = claim::filter_its(t, &claim.its, &r, &total, &pod.host_ports, &known, &mut self.cache.borrow_mut(), m)?;
        if claim::has_min_values(&r) {
            if let Some((key, min, found)) = claim::min_values_shortfall(&its, &r, m) {
                if new_claim && m.settings.min_values_policy == MinValuesPolicy::BestEffort {
                    // Lower every failing key's minValues to what is available (R2.11.3).
                    let mut guard = 0;
                    while let Some((k, _, n)) = claim::min_values_shortfall(&its, &r, m) {
                        if let Some(req) = r.get(k) {
                            let mut lowered = req.clone();
                            lowered.min_values = Some(n as u32);
                            r.set(k, lowered);
                        }
                        guard += 1;
                        if guard > 64 {
                            break;
                        }
                    }
                } else {
                    return Err(Fail::MinValues { key, min, found });
                }
            }
        }
        // Karpenter runs the allocator before its instance-type filter and keeps the types both
        // accept (nodeclaim.go); the intersection is the same either way.
        let its = match &self.dra {
            Some(pass) if pod.resource_claims => {
                let outcome = pass.check(m, pod, dra::Holder::Claim(claim.hostname), &its).map_err(Fail::Dra)?;
                outcome.its
            }
            _ => its,
        };
        Ok((r, its, ties))
    }
}

/// `tied` ordered from Karpenter's likeliest pick to its least likely, for a walk over a Go set
/// holding `listed`'s values (those of them `tied` and the claim still allow, in that order) in
/// its slots: the walk starts at a random one of 8 slots and wraps, and the first tied value it
/// meets wins. A tied value wins from every start after the previous tied slot up to its own;
/// the first tied value also from every start after the last tied slot, the empty slots
/// included. So with at most 5 values the first listed is always the likeliest, while with 6
/// to 8 a later value after a long gap can be (tied at slots 0 and 5: 3 starts against 5).
/// Equal chances, and values the set does not hold, go by name.
fn likeliest_first<'a>(tied: &[ValueId], listed: &[ValueId], name: impl Fn(ValueId) -> &'a str) -> Vec<ValueId> {
    const SLOTS: usize = 8;
    let slots: Vec<usize> = listed.iter().enumerate().filter(|(_, v)| tied.contains(v)).map(|(i, _)| i).collect();
    let starts = |v: ValueId| -> usize {
        let Some(at) = listed.iter().position(|&x| x == v) else { return 0 };
        match slots.iter().position(|&s| s == at) {
            Some(0) => slots[0] + SLOTS - slots[slots.len() - 1],
            Some(i) => slots[i] - slots[i - 1],
            None => 0,
        }
    };
    let mut order = tied.to_vec();
    order.sort_by(|&a, &b| starts(b).cmp(&starts(a)).then_with(|| name(a).cmp(name(b))));
    order
}

#[cfg(test)]
mod tests {
    use super::likeliest_first;

    fn order(tied: &[u32], listed: &[u32]) -> Vec<u32> {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        likeliest_first(tied, listed, |v| names[v as usize])
    }

    #[test]
    fn the_first_listed_wins_small_sets() {
        // [spot, on-demand] listed as spot (1), on-demand (0): spot 7 starts of 8.
        assert_eq!(order(&[0, 1], &[1, 0]), vec![1, 0]);
        // Three values, the last two tied: slot 1 wins 1 + 8 - 2 = 7 starts.
        assert_eq!(order(&[2, 1], &[0, 1, 2]), vec![1, 2]);
    }

    #[test]
    fn a_long_gap_beats_the_first_listed_in_big_sets() {
        // Six values, tied at slots 0 and 5: slot 5 wins 5 starts, slot 0 wins 3.
        assert_eq!(order(&[0, 5], &[0, 1, 2, 3, 4, 5]), vec![5, 0]);
        // Tied at slots 0 and 4: 4 starts each, equal chances go by name.
        assert_eq!(order(&[4, 0], &[0, 1, 2, 3, 4, 5]), vec![0, 4]);
    }

    #[test]
    fn without_a_listing_by_name() {
        assert_eq!(order(&[2, 0, 1], &[]), vec![0, 1, 2]);
        // A value the listing lacks comes after the listed ones.
        assert_eq!(order(&[3, 1], &[1, 2]), vec![1, 3]);
    }
}
