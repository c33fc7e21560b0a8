//! Static NodePools in the simulation (StaticCapacity gate on): Karpenter's static
//! provisioning controller reconciles a static pool whenever one of its NodeClaims gets a
//! deletion timestamp or goes away (pkg/controllers/static/provisioning/controller.go, its
//! NodeClaim watch), and creates `replicas − active` new ones within `limits.nodes`
//! (`static_pools::to_launch`). The missing replicas at time 0 are already in-flight
//! NodeClaims of the model (`static_pools::apply`); this tops a pool up after a static node
//! is cordoned (expired, interrupted) or terminated.

use super::sim::Sim;
use super::state::NState;
use crate::static_pools::{launch_choice, node_limit, to_launch};

impl Sim {
    /// Launch the replicas the static pools miss now.
    pub fn static_top_up(&mut self) {
        if !self.m.settings.feature_gates.static_capacity || !self.m.node_pools.iter().any(|p| p.replicas.is_some()) {
            return;
        }
        for pool in 0..self.m.node_pools.len() {
            let np = &self.m.node_pools[pool];
            let Some(replicas) = np.replicas else { continue };
            if !np.ready {
                continue;
            }
            let limit = node_limit(&np.limits);
            let (mut active, mut deleting) = (0i64, 0i64);
            for n in self.nodes.iter().filter(|n| n.pool == Some(pool) && n.state != NState::Terminated) {
                if n.deleting {
                    deleting += 1;
                } else {
                    active += 1;
                }
            }
            let count = to_launch(replicas, active, deleting, limit);
            if count <= 0 {
                continue;
            }
            let Some((l, alloc)) = launch_choice(pool, &self.m) else { continue };
            for _ in 0..count {
                self.launch_node(pool, l.it as usize, l.capacity_type, l.zone, None, alloc.clone(), None, l.reservation);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::json::{Input, Outcome, Request};
    use crate::simulate::{SecondsRange, SimSettings, Simulation, TraceInput};

    const CLUSTER: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: warm}\nspec:\n  replicas: 2\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n      expireAfter: 1h\n      requirements:\n      - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}\n      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}\n";

    fn run(gate: bool) -> Simulation {
        let mut req = Request {
            inputs: vec![Input { name: Some("cluster.yaml".into()), text: CLUSTER.into() }],
            trace: Some(TraceInput { name: Some("trace.yaml".into()), text: "kind: Trace\nend: 150m\nevents: []\n".into(), format: None }),
            simulation: Some(SimSettings {
                gpu_startup_seconds: SecondsRange { min: 240, max: 240 },
                device_plugin_seconds: SecondsRange { min: 75, max: 75 },
                spot_interruption_rate_per_hour: 0.0,
                ..Default::default()
            }),
            ..Default::default()
        };
        req.settings.feature_gates.static_capacity = gate;
        match crate::json::simulate(&req).outcome {
            Outcome::Success(s) => s,
            Outcome::Failure { errors } => panic!("{errors:?}"),
        }
    }

    #[test]
    fn expired_static_nodes_are_replaced_at_once() {
        let s = run(true);
        // 2 at the start, expiring at 1h; their 2 replacements expire at ~2h and are replaced too.
        assert_eq!(s.nodes.len(), 6, "{:?}", s.nodes.iter().map(|n| (&n.name, n.launched_seconds)).collect::<Vec<_>>());
        assert!(s.nodes.iter().all(|n| n.instance_type.as_deref() == Some("g5.xlarge")));
        let alive = s.nodes.iter().filter(|n| n.termination_reason.is_none()).count();
        assert_eq!(alive, 2);
        let expired = s.nodes.iter().filter(|n| n.termination_reason == Some(crate::vocab::TerminationReason::Expired)).count();
        assert_eq!(expired, 4);
        // Empty static nodes are never consolidated.
        assert!(!s.nodes.iter().any(|n| n.termination_reason == Some(crate::vocab::TerminationReason::Empty)));
    }

    #[test]
    fn gate_off_runs_no_static_node() {
        let s = run(false);
        assert!(s.nodes.is_empty());
        assert!(s.warnings.iter().any(|w| w.code == "static-capacity-gate-off"));
    }
}
