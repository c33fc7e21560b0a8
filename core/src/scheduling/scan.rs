//! Finding the first placement target that accepts a pod: existing nodes in scheduling order,
//! then open NodeClaims fewest pods first. Both scans skip targets known to reject (see
//! `memo`): by the pod's shape when it has no topology groups, otherwise by its requests,
//! remembering only rejections for lack of room. Those are the `Fail::Resources` answers:
//! `can_add` and `ExistingState::accepts` give it for nothing else, and it reads only the
//! target's state, the pod's requests and whether the pod is bound.

use super::memo::Verdict;
use super::{Fail, Solver, View};
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
            || 0..self.existing.len() as u32,
            |_| 0,
            |_| true,
            |i| match self.existing[i].accepts(pod, view, &self.topo, m) {
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
    ) -> Option<(usize, Requirements, Vec<u32>, super::claim::Ties)> {
        let (key, by_room) = self.scan_key(pod, shape);
        let mut memo = std::mem::take(if by_room { &mut self.claim_room_memo } else { &mut self.claim_memo });
        let mut found = None;
        memo.first_accepting(
            key,
            || self.order.open_in_order(),
            |c| self.order.scan_key(c),
            |c| self.claim_alive[c],
            |c| match self.can_add(&self.claims[c], pod, view, false) {
                Ok((r, its, ties)) => {
                    found = Some((c, r, its, ties));
                    Verdict::Accept
                }
                Err(e) => rejection(&e, by_room),
            },
        );
        *(if by_room { &mut self.claim_room_memo } else { &mut self.claim_memo }) = memo;
        found
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
