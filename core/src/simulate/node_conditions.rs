//! Applying a trace's `condition` event (conditions.rs) to the live node it names.

use super::conditions::ConditionEvent;
use super::sim::Sim;
use crate::model::NodeCondition;
use crate::vocab::TimelineEvent;

impl Sim {
    /// Set the condition on the live node's Node: a changed status moves its
    /// lastTransitionTime to now (a reason-only change keeps it, as the kubelet does).
    pub fn set_condition(&mut self, c: ConditionEvent) {
        let abs = self.abs_now();
        let Some(n) = self.node_by_name.get(&c.node).copied() else {
            self.warn_unknown_node(&c.node);
            return;
        };
        let Some(en) = self.nodes[n].midx.map(|i| &mut self.m.nodes[i]) else {
            self.warn_unknown_node(&c.node);
            return;
        };
        match en.conditions.iter_mut().find(|x| x.type_ == c.type_) {
            Some(x) => {
                if x.status != c.status {
                    x.last_transition = Some(abs);
                }
                x.status = c.status.clone();
                x.reason = c.reason.clone();
            }
            None => en.conditions.push(NodeCondition {
                type_: c.type_.clone(),
                status: c.status.clone(),
                reason: c.reason.clone(),
                last_transition: Some(abs),
            }),
        }
        if c.type_ == "Ready" {
            en.ready = c.status == "True";
        }
        let detail =
            if c.reason.is_empty() { format!("{}={}", c.type_, c.status) } else { format!("{}={} ({})", c.type_, c.status, c.reason) };
        self.log(TimelineEvent::NodeCondition, c.node.clone(), Some(c.node.clone()), None, Some(detail));
        // A pass now (the breaker and budgets may change); it schedules the one at the end of
        // the toleration.
        self.mark_dirty();
        let next = self.nodes[n].midx.and_then(|i| crate::disruption::next_repair_at(&self.m, &self.m.nodes[i], abs));
        if let Some(at) = next {
            // With the gate on, the pass after this one is due then (nodes.rs next_instant).
            if !self.m.settings.feature_gates.node_repair {
                let message = format!(
                    "condition at {}s: {}={} on {} matches a repair policy; with the NodeRepair feature gate (NodeRepair=true) Karpenter would replace the node from {}s on; the gate is off (Karpenter v1.15's default)",
                    self.now, c.type_, c.status, c.node, at - self.origin
                );
                self.warnings.push(crate::api::Warning {
                    code: "node-repair-disabled".into(),
                    message,
                    object: Some(format!("Node/{}", c.node)),
                });
            }
        }
    }

    fn warn_unknown_node(&mut self, node: &str) {
        let message = format!("condition at {}s: no live NodeClaim named {node:?}", self.now);
        self.warnings.push(crate::api::Warning { code: "unknown-node".into(), message, object: None });
    }
}
