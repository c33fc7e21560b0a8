//! Karpenter's 15 s command validation on the simulated clock (disruption/validation.go;
//! docs/karpenter-fidelity.md, section 57).
//!
//! Emptiness and multi- and single-node consolidation do not carry out the command they
//! compute: inside the same pass the controller waits `commandValidationDelay` (15 s), checks
//! the command again on the cluster as it is then, and only then hands it to its queue.
//! Meanwhile the provisioner keeps running (pods arrive, are nominated to the candidates,
//! finish), but no other disruption pass does. A command that fails the check is dropped, and
//! the pass goes on with the next method: after emptiness the drift methods and consolidation,
//! after multi-node single-node consolidation; after single-node the pass ends and the
//! controller looks again a poll later. The checks themselves are the core's
//! (`disruption::validate_command`): one candidate filter and, for consolidation, one
//! scheduling simulation of the command's candidates.

use super::sim::Sim;
use super::state::{Ev, PendingCommand};
use crate::api::Decision;
use crate::disruption::{PassFrom, COMMAND_VALIDATION_DELAY_SECONDS};
use crate::reason::Method;
use crate::vocab::TimelineEvent;

impl Sim {
    /// A pass decided an emptiness or consolidation command: log it, and validate it 15 s
    /// from now.
    pub(super) fn await_validation(&mut self, d: Decision) {
        let reason = d.reason.map(|r| r.as_str().to_string());
        for name in &d.disrupted_nodes {
            self.log(TimelineEvent::DisruptionDecided, name.clone(), None, reason.clone(), Some(d.command.clone()));
        }
        self.command_gen += 1;
        let (gen, at) = (self.command_gen, self.now + COMMAND_VALIDATION_DELAY_SECONDS);
        self.push(at, Ev::Validate(gen));
        self.command = Some(PendingCommand { decision: d });
    }

    /// The pending command's validation: carried out with what is still valid, or dropped
    /// and the pass goes on as Karpenter's does.
    pub(super) fn validate_command(&mut self) {
        let Some(PendingCommand { decision: d }) = self.command.take() else { return };
        let abs = self.abs_now();
        // The buffers' virtual pods are pending pods to the simulation, as in the pass.
        let first_virtual = (!self.virtual_pods.is_empty()).then(|| self.add_virtual_pods());
        let v = crate::disruption::validate_command(&self.m, abs, &d, &mut self.baseline_memo);
        if let Some(first) = first_virtual {
            self.remove_virtual_pods(first);
        }
        for r in &v.rejected {
            let detail = format!("{}; command: {}", r.message, d.command);
            self.log(TimelineEvent::DisruptionRejected, r.node.clone(), None, Some(r.kind.as_str().into()), Some(detail));
        }
        if !v.nodes.is_empty() {
            self.carry_out(&crate::disruption::narrow(&d, &v.nodes));
            // RequeueImmediately: the next pass runs now.
            self.request_pass(self.now);
            return;
        }
        let next = match d.method {
            Some(Method::Emptiness) => Some(PassFrom::AfterEmptiness),
            Some(Method::MultiNodeConsolidation) => Some(PassFrom::SingleNode),
            _ => None,
        };
        if let Some(from) = next {
            self.pass_from(from);
        }
        // The pass ended without a command (or with one that waits now): Karpenter looks
        // again a poll later. Passes the wait held back run then at the latest.
        if self.command.is_none() {
            let at = self.now + self.s.disruption_poll_seconds;
            self.request_pass(at);
        }
    }
}
