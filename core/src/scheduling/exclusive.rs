//! Exclusive placement in near-linear time (issue 29).
//!
//! JobSet's and LeaderWorkerSet's exclusive topology gives each Job (group) a hostname
//! anti-affinity against every other Job's pods: a `topology::Family` of member groups. A pod
//! of Job `v` tries the open NodeClaims in Karpenter's order and takes the first that accepts
//! it; every NodeClaim on which a pod of another Job counts refuses it (its member group's
//! count there, the family's less `v`'s, is above 0: `next_domain_of`'s single-domain branch,
//! since a NodeClaim is one hostname domain). With one NodeClaim per Job each pod was tried
//! against every earlier one: n²/2 tries for n Jobs, each constant-time since the families,
//! 10,000 Jobs in minutes.
//!
//! So a pod with such a member group tries only the NodeClaims that member may accept: those
//! where no pod of the family counts (kept per family as a list that only shrinks, since counts
//! only grow within a pass, plus the NodeClaims made since) and those where only pods of `v`
//! count (from the family's per-value counts). Sorted by Karpenter's scan order, the first of
//! them that accepts is the first of all open NodeClaims that accepts, as the skipped ones
//! refuse: the same answer (`tests::index_and_full_scan_agree`). When the candidates are not
//! clearly fewer than the open NodeClaims (a family beside many NodeClaims of other pods),
//! the full scan with its memos (`scan`) runs instead.

use super::topology::HostMember;
use super::{Solver, View};
use crate::fxhash::FxHashMap;
use crate::labels::ValueId;

#[derive(Default)]
pub struct ExclusiveIndex {
    /// How many NodeClaims `claim_of` has taken in.
    seen: usize,
    /// Placeholder hostname → NodeClaim.
    claim_of: FxHashMap<ValueId, u32>,
    /// Per family: how many NodeClaims its list has taken in, and the open NodeClaims on which
    /// none of its pods counted when last looked (ascending; pruned on every use).
    free: FxHashMap<usize, (usize, Vec<u32>)>,
    /// Reused buffer for a member's hostnames.
    hosts: Vec<ValueId>,
}

/// Below this many candidates the index is used whatever the number of open NodeClaims.
const SMALL: usize = 16;

#[cfg(test)]
thread_local! {
    /// Tests turn the index off to compare its answers with the full scan's.
    pub(super) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tries of open NodeClaims (`can_add` from the scan) on this thread.
    pub(super) static TRIES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
pub(super) fn count_try() {
    TRIES.with(|t| t.set(t.get() + 1));
}

impl Solver<'_> {
    /// The open NodeClaims `view` may take, in scan order, when it has a hostname family
    /// member and they are few (see the module doc); None: scan every open NodeClaim.
    pub(super) fn exclusive_candidates(&mut self, view: &View) -> Option<Vec<u32>> {
        #[cfg(test)]
        if OFF.with(|off| off.get()) {
            return None;
        }
        let member: HostMember = view.groups.iter().find_map(|&(g, _)| self.topo.host_member(g))?;
        let n = self.claims.len();
        let idx = &mut self.exclusive;
        for c in idx.seen..n {
            idx.claim_of.insert(self.claims[c].hostname, c as u32);
        }
        idx.seen = n;
        let alive = |c: u32| self.claim_alive.get(c as usize).copied().unwrap_or(false);
        let (taken, free) = idx.free.entry(member.family).or_default();
        free.extend(*taken as u32..n as u32);
        *taken = n;
        let topo = &self.topo;
        let claims = &self.claims;
        free.retain(|&c| alive(c) && topo.family_free_at(member.family, claims[c as usize].hostname));
        let mut out = free.clone();
        topo.member_owned_hosts(member, &mut idx.hosts);
        out.extend(idx.hosts.iter().filter_map(|h| idx.claim_of.get(h).copied()).filter(|&c| alive(c)));
        if out.len() > SMALL && out.len() * 2 > self.order.open_count() {
            return None;
        }
        out.sort_unstable_by_key(|&c| (self.order.scan_key(c as usize), c));
        Some(out)
    }
}

#[cfg(test)]
mod tests;
