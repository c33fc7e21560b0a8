//! Karpenter's pod controller requeue (provisioning/controller.go; docs/karpenter-fidelity.md,
//! sections 58 and 59): it triggers the provisioner for a provisionable pod when it sees it and
//! again every 10 s while the pod stays so, so while pods wait unplaced a provisioning pass
//! follows the first of their requeues and tries them on a cluster that has moved on (a NodeClaim
//! launched into a zone, a node registered). `log` (engine.rs) arms the requeue on the first
//! change after a pass that left pods unplaced; the pass then runs only if the cluster changed
//! since the last one began, so requeues of an unchanged cluster cost nothing.
//!
//! A pod nominated to a NodeClaim still in flight is unbound, so provisionable too: its requeues
//! go on until the node registers, and every pass renews the nomination window of the node it
//! places the pod on (`Results.Record` → `Nominate`). Karpenter's pass packs such pods again with
//! the pending ones; the simulator keeps them where they are nominated and renews those nodes'
//! windows (`renew_nominations`): one event per 10 s per waiting period, each O(pods waiting),
//! and a waiting period ends when the NodeClaim registers. `nominate` and `bind` keep
//! `Sim::nominated`, the pods waiting so.

use super::sim::Sim;
use super::state::{Ev, NState, PodState, POD_REQUEUE_SECONDS};
use crate::vocab::TimelineEvent;

/// Renewal-only requeues further than this before a registration are folded (`folded_renewal`).
const FOLD_AFTER_SECONDS: i64 = 600;

impl Sim {
    /// Puts the earliest next requeue of the waiting pods (each pod's creation + 10 s × k,
    /// pending or nominated to a NodeClaim in flight) on the queue.
    pub(super) fn arm_requeue(&mut self) {
        let now = self.now;
        let next = self
            .pending
            .union(&self.nominated)
            .map(|&p| {
                let since = self.pods[p].pending_since.min(now);
                since + POD_REQUEUE_SECONDS * ((now - since) / POD_REQUEUE_SECONDS + 1)
            })
            .min();
        if let Some(at) = next {
            self.requeue_armed = true;
            self.push(at, Ev::Requeue);
        }
    }

    /// A requeue is due: a provisioning batch if pods wait and the cluster changed since the
    /// last pass began (a pass over the same cluster would answer the same), or if pods wait
    /// nominated to a NodeClaim in flight (the pass renews its nomination window).
    pub(super) fn requeue(&mut self) {
        self.requeue_armed = false;
        let changed = self.changes != self.batch_saw;
        if !self.pending.is_empty() && changed {
            self.trigger_batch();
        } else if !self.nominated.is_empty() {
            if self.pending.is_empty() && self.virtual_pods.is_empty() {
                if let Some(at) = self.folded_renewal() {
                    self.push(at, Ev::Requeue);
                    return;
                }
            }
            self.trigger_batch();
        }
    }

    /// Where only renewals are left (nothing pending and no buffers: `run_batch` then only
    /// renews) and the first NodeClaim the waiting pods are nominated to registers more than
    /// `FOLD_AFTER_SECONDS` later: the last requeue whose pass ends before that registration.
    /// Until then every pass would only renew windows of nodes in flight, which no disruption
    /// pass reads (an uninitialized node is no candidate) and the last renewal overwrites, so
    /// they are skipped: the requeues of a waiting period stay bounded however long a start-up
    /// the settings give (ten years at most), and no start-up under 10 minutes is affected.
    fn folded_renewal(&self) -> Option<i64> {
        // A host without a known registration time (none is expected) folds nothing.
        let reg = self
            .nominated
            .iter()
            .map(|&p| self.pods[p].node.and_then(|n| self.nodes[n].registers_at))
            .try_fold(i64::MAX, |min, at| at.map(|at| min.min(at)))?;
        let limit = reg - self.s.batch_idle_seconds - 1;
        let last = self
            .nominated
            .iter()
            .map(|&p| {
                let since = self.pods[p].pending_since.min(self.now);
                since + POD_REQUEUE_SECONDS * (limit - since).div_euclid(POD_REQUEUE_SECONDS)
            })
            .max()?;
        (last - self.now > FOLD_AFTER_SECONDS).then_some(last)
    }

    /// What a provisioning pass does for the pods nominated to a NodeClaim in flight: it
    /// nominates their nodes again, which renews the nodes' nomination windows. (Karpenter packs
    /// those pods again with the pending ones and may put them elsewhere; the simulator keeps
    /// their nominations: docs/karpenter-fidelity.md, section 59.)
    pub(super) fn renew_nominations(&mut self) {
        let hosts: std::collections::BTreeSet<usize> = self.nominated.iter().filter_map(|&p| self.pods[p].node).collect();
        for n in hosts {
            self.hold_nominated(n);
        }
    }

    /// Nominates pending pod `p` to node `n`: bound at once to a registered node, else it
    /// waits, provisionable, until its NodeClaim registers.
    pub fn nominate(&mut self, p: usize, n: usize) {
        self.pending.remove(&p);
        self.pods[p].state = PodState::Nominated;
        self.pods[p].node = Some(n);
        if self.pods[p].nodes.last() != Some(&n) {
            self.pods[p].nodes.push(n);
        }
        let name = self.nodes[n].name.clone();
        self.set_pod_node(p, Some(name.clone()));
        self.node_gains_pod(n, p);
        let key = self.pods[p].key.clone();
        self.log(TimelineEvent::PodNominated, key, Some(name), None, None);
        match self.nodes[n].state {
            NState::Registered => self.bind(p),
            NState::Initialized => {
                self.bind(p);
                self.start(p);
            }
            _ => {
                self.nominated.insert(p);
            }
        }
    }

    pub fn bind(&mut self, p: usize) {
        self.nominated.remove(&p);
        self.pods[p].state = PodState::Bound;
        let node = self.pods[p].node.map(|n| self.nodes[n].name.clone());
        let key = self.pods[p].key.clone();
        self.log(TimelineEvent::PodBound, key, node, None, None);
    }
}
