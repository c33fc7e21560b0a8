//! Finding the first placement target that accepts a pod: existing nodes in scheduling order,
//! then open NodeClaims fewest pods first. Both scans skip targets known to reject (see
//! `memo`): by the pod's shape when it has no topology groups, otherwise by its requests,
//! remembering only rejections for lack of room. Those are the `Fail::Resources` answers:
//! `can_add` and `ExistingState::accepts` give it for nothing else, and it reads only the
//! target's state, the pod's requests and whether the pod is bound.

use super::memo::{HostGroups, Verdict};
use super::topology::GroupKind;
use super::{Fail, Solver, View};
use crate::labels::KeyId;
use crate::model::Pod;
use crate::requirements::Requirements;

impl Solver<'_> {
    /// The memo key and whether it is the requests-only key (see `memo`).
    fn scan_key(&mut self, pod: &Pod, shape: Option<u32>) -> (u32, bool) {
        match shape {
            Some(shape) => (shape, false),
            None => (self.shape_ids.requests(pod), true),
        }
    }

    /// The first existing node that accepts `pod`, with the node's requirements.
    pub(super) fn first_existing(&mut self, pod: &Pod, view: &View, shape: Option<u32>) -> Option<(usize, Requirements)> {
        let m = self.m;
        let (key, by_room) = self.scan_key(pod, shape);
        let mut memo = std::mem::take(if by_room { &mut self.existing_room_memo } else { &mut self.existing_memo });
        let mut found = None;
        memo.first_accepting(
            key,
            None,
            || 0..self.existing.len() as u32,
            |_| 0,
            |_| true,
            |i| match self.existing[i]
                .accepts(pod, view, &self.topo, m)
                .and_then(|r| self.dra_accepts(pod, self.existing[i].node).map(|_| r))
            {
                Ok(reqs) => {
                    found = Some((i, reqs));
                    Verdict::Accept
                }
                Err(e) => rejection(&e, by_room),
            },
        );
        *(if by_room { &mut self.existing_room_memo } else { &mut self.existing_memo }) = memo;
        found
    }

    /// The first open NodeClaim that accepts `pod`, with its requirements and candidate types
    /// after adding the pod.
    pub(super) fn first_open_claim(
        &mut self,
        pod: &Pod,
        view: &View,
        shape: Option<u32>,
    ) -> Option<(usize, Requirements, Vec<u32>, super::claim::Ties, super::reserve::Held)> {
        // A pod of an exclusive Job tries only the NodeClaims its Job may take (`exclusive`).
        if let Some(candidates) = self.exclusive_candidates(view) {
            return candidates.into_iter().find_map(|c| {
                let c = c as usize;
                #[cfg(test)]
                super::exclusive::count_try();
                self.can_add(&self.claims[c], pod, view, false).ok().map(|(r, its, ties, held)| (c, r, its, ties, held))
            });
        }
        let (key, by_room) = self.scan_key(pod, shape);
        let (key, class) = if by_room { self.shape_ids.with_hosts(key, self.host_groups(view)) } else { (key, None) };
        let hostname = self.m.keys.hostname;
        let mut memo = std::mem::take(if by_room { &mut self.claim_room_memo } else { &mut self.claim_memo });
        let mut found = None;
        memo.first_accepting(
            key,
            class,
            || self.order.open_in_order(),
            |c| self.order.scan_key(c),
            |c| self.claim_alive[c],
            |c| {
                #[cfg(test)]
                super::exclusive::count_try();
                match self.can_add(&self.claims[c], pod, view, false) {
                    Ok((r, its, ties, held)) => {
                        found = Some((c, r, its, ties, held));
                        Verdict::Accept
                    }
                    Err(e) => claim_rejection(&e, by_room, class.map(|_| hostname)),
                }
            },
        );
        *(if by_room { &mut self.claim_room_memo } else { &mut self.claim_memo }) = memo;
        found
    }
}

impl Solver<'_> {
    /// The view's hostname spread and anti-affinity groups (see `memo::HostGroups`).
    fn host_groups(&self, view: &View) -> HostGroups {
        let hostname = self.m.keys.hostname;
        view.groups
            .iter()
            .filter(|&&(g, _)| {
                let def = &self.topo.groups[g].def;
                def.key == hostname && def.kind != GroupKind::Affinity
            })
            .map(|&(g, selects)| (g as u32, selects))
            .collect()
    }
}

/// What a failed try of an open NodeClaim means for the memo of pods with topology groups,
/// keyed by requests and hostname groups (`ShapeIds::with_hosts`): a lack of room and a
/// hostname spread or anti-affinity rejection hold for the rest of the pass. Room only shrinks
/// (requests grow, candidates only go). A NodeClaim's hostname requirement is its one
/// placeholder, so such a group judges it by its count in that domain alone (`next_domain`'s
/// single-domain branch; an incompatible pod hostname fails earlier, on requirements), and that
/// count only grows. Every pod with the key carries the group with the same `selects`, so the
/// NodeClaim rejects all of them. Any other rejection (zone groups, hostname affinity, whose
/// bootstrap depends on other domains) holds for this pod only. The hostname rejection reads
/// nothing of the pod but those groups, so it holds for the keys with other requests too
/// ([`Verdict::DeadForGroups`]).
/// `hostname`: the key when the memo key holds the hostname groups.
fn claim_rejection(e: &Fail, by_room: bool, hostname: Option<KeyId>) -> Verdict {
    match e {
        // Reservation counts change without the claim changing: ask again next time.
        Fail::Reserved(_) => Verdict::Skip,
        _ if !by_room => Verdict::Reject,
        Fail::Resources => Verdict::Dead,
        Fail::Topology { kind: GroupKind::Spread | GroupKind::AntiAffinity, key } if Some(*key) == hostname => Verdict::DeadForGroups,
        _ => Verdict::Skip,
    }
}

/// What a failed try means for the memo: with the shape key every rejection holds until the
/// target changes; with the requests-only key only a lack of room does (`Fail::Resources`,
/// which `can_add` and `ExistingState::accepts` give for nothing else).
fn rejection(e: &Fail, by_room: bool) -> Verdict {
    if !by_room || matches!(e, Fail::Resources) {
        Verdict::Reject
    } else {
        Verdict::Skip
    }
}
