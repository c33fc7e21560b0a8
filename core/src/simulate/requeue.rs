//! Karpenter's pod controller requeue (provisioning/controller.go; docs/karpenter-fidelity.md,
//! section 58): it triggers the provisioner for a provisionable pod when it sees it and again
//! every 10 s while the pod stays so, so while pods wait unplaced a provisioning pass follows
//! the first of their requeues and tries them on a cluster that has moved on (a NodeClaim
//! launched into a zone, a node registered). `log` (engine.rs) arms the requeue on the first
//! change after a pass that left pods unplaced; the pass then runs only if the cluster changed
//! since the last one began, so requeues of an unchanged cluster cost nothing.

use super::sim::Sim;
use super::state::{Ev, POD_REQUEUE_SECONDS};

impl Sim {
    /// Puts the earliest next requeue of the waiting pods (each pod's creation + 10 s × k) on
    /// the queue. (Pods nominated to a node that has not bound them yet requeue in Karpenter
    /// too; here they have left `pending`.)
    pub(super) fn arm_requeue(&mut self) {
        let now = self.now;
        let next = self
            .pending
            .iter()
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
    /// last pass began (a pass over the same cluster would answer the same).
    pub(super) fn requeue(&mut self) {
        self.requeue_armed = false;
        if !self.pending.is_empty() && self.changes != self.batch_saw {
            self.trigger_batch();
        }
    }
}
