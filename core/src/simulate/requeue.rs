//! Karpenter's pod controller requeue (provisioning/controller.go; docs/karpenter-fidelity.md,
//! sections 58 and 59): it triggers the provisioner for a provisionable pod when it sees it and
//! again every 10 s while the pod stays so, so while pods wait unplaced a provisioning pass
//! follows the first of their requeues and tries them on a cluster that has moved on (a NodeClaim
//! launched into a zone, a node registered). `log` (engine.rs) arms the requeue on the first
//! change after a pass that left pods unplaced; the pass then runs only if the cluster changed
//! since the last one began, so requeues of an unchanged cluster cost nothing.
//!
//! A pod nominated to a NodeClaim still in flight is unbound, so provisionable too: its requeues
//! go on until the node registers. Each runs a pass, and a pass that places a pod on an existing
//! or in-flight node renews that node's nomination window (`Results.Record` → `Nominate`). Over
//! an unchanged cluster the pass would place the nominated pods where the last one did, so it
//! only renews those windows (`renew_nominations`): one event per 10 s per waiting period, each
//! O(pods waiting), and a waiting period ends when the NodeClaim registers. `nominate` and
//! `bind` keep `Sim::nominated`, the pods waiting so.

use super::sim::Sim;
use super::state::{Ev, NState, PodState, POD_REQUEUE_SECONDS};
use crate::vocab::TimelineEvent;

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
        if !self.pending.is_empty() && changed || !self.nominated.is_empty() {
            self.trigger_batch();
        }
    }

    /// The pass of a batch that closes on a cluster unchanged since the last pass began: it
    /// would place the waiting nominated pods where that pass did, which renews those nodes'
    /// nomination windows, and nothing else.
    pub(super) fn renew_nominations(&mut self) {
        let hosts: std::collections::BTreeSet<usize> =
            self.repacked.iter().filter(|p| self.nominated.contains(p)).filter_map(|&p| self.pods[p].node).collect();
        for n in hosts {
            self.hold_nominated(n);
        }
        if !self.requeue_armed && !self.nominated.is_empty() {
            self.arm_requeue();
        }
    }

    /// Nominates pod `p` to node `n`: bound at once to a registered node, else it waits,
    /// provisionable, until its NodeClaim registers. A later pass that packs a waiting pod onto
    /// the same node changes nothing; onto another node, it moves the nomination.
    pub fn nominate(&mut self, p: usize, n: usize) {
        if self.pods[p].state == PodState::Nominated {
            if self.pods[p].node == Some(n) {
                return;
            }
            self.nominated.remove(&p);
            if let Some(old) = self.pods[p].node.take() {
                self.node_loses_pod(old, p);
                // It never ran there: the pod's nodes list only the nodes it was bound to.
                if self.pods[p].nodes.last() == Some(&old) {
                    self.pods[p].nodes.pop();
                }
                self.nodes[old].pods_ever -= 1;
            }
        }
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
