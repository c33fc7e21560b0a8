//! CapacityBuffers in the simulation (CapacityBuffer gate on).
//!
//! Karpenter v1.15 (sigs.k8s.io/karpenter@v1.15.0) keeps a buffer's virtual pods in a cache
//! (pkg/state/virtualpods) and appends all of them to the pending pods of every provisioning
//! pass (`GetPendingPods`, pkg/controllers/provisioning/provisioner.go). They are never bound:
//! each pass places them again, on existing or in-flight nodes with room, or on new NodeClaims
//! it launches for them. So when real pods take a warm spare node, the next pass finds no room
//! for the virtual pods and launches a new spare. The pieces here:
//! - the virtual pods are in the model's pods only during a provisioning pass (engine.rs
//!   `run_batch`) and a disruption pass (nodes.rs): consolidation's simulation schedules them
//!   with the other pending pods (`SimulateScheduling` calls `GetPendingPods`), so a
//!   replacement must have room for them too;
//! - their creation time is the buffer controller's last reconcile (it rebuilds them with
//!   `time.Now()` every 30 s, capacitybuffer/controller.go), which orders them among real pods
//!   of the same size in the pass (scheduling/queue.go sorts by cpu, memory, creation time);
//! - kube-scheduler binds a pending pod to a ready node with room as soon as it appears, before
//!   Karpenter's batch closes: the virtual pods, which kube-scheduler never sees, do not take
//!   that room from real pods (`kube_scheduler_binds`);
//! - the nodes a pass put virtual pods on are not empty to emptiness (`bufferPodCounts`,
//!   pkg/controllers/state/cluster.go; emptiness.go `HasBufferPods`): `Model::buffer_hosts`;
//! - the buffer controller wakes the provisioner every 30 s; a pass changes something only
//!   when the cluster did, so the simulator runs one when pods or nodes change instead
//!   (`buffers_changed`, and `capacity_freed` in engine.rs).

use super::sim::Sim;
use super::state::{NState, VIRTUAL};
use crate::scheduling::{self, Placement};

/// How often the buffer controller reconciles a buffer (`RequeueAfter: 30 * time.Second`).
pub const RECONCILE_SECONDS: i64 = 30;

impl Sim {
    /// Appends the virtual pods to the model's pods, pending, created at the buffer
    /// controller's last reconcile; returns the index of the first.
    pub fn add_virtual_pods(&mut self) -> usize {
        let first = self.m.pods.len();
        let created = self.origin + self.now / RECONCILE_SECONDS * RECONCILE_SECONDS;
        for p in &self.virtual_pods {
            let mut p = p.clone();
            p.created = created;
            self.m.pods.push(p);
            self.model_pod_owner.push(VIRTUAL);
        }
        first
    }

    /// Takes the virtual pods out again (they were appended after every real pod).
    pub fn remove_virtual_pods(&mut self, first: usize) {
        self.m.pods.truncate(first);
        self.model_pod_owner.truncate(first);
    }

    /// kube-scheduler's part: the pending pods that fit on registered, not deleting nodes are
    /// bound there before Karpenter's pass (placed as the pass would place them alone).
    pub fn kube_scheduler_binds(&mut self) {
        let pending: Vec<usize> = self.pending.iter().filter_map(|&p| self.pods[p].midx).collect();
        let base = scheduling::Baseline::remembering(&self.m, &mut self.baseline_memo);
        let sol = scheduling::solve_on(&self.m, &base, Some(&pending), &[], &[]);
        let mut binds: Vec<(usize, usize)> = Vec::new();
        for (&mp, pl) in &sol.placements {
            if let Placement::Existing(i) = pl {
                let n = self.model_node_owner[sol.existing[*i].node];
                let node = &self.nodes[n];
                if matches!(node.state, NState::Registered | NState::Initialized) && !node.deleting {
                    binds.push((self.model_pod_owner[mp], n));
                }
            }
        }
        drop(sol);
        binds.sort_unstable();
        for (p, n) in binds {
            self.nominate(p, n);
        }
    }

    /// Something the buffers' placement depends on changed (the buffers appeared, a node came
    /// up or is going): wake the provisioner, as the buffer controller's reconcile does.
    pub fn buffers_changed(&mut self) {
        if !self.virtual_pods.is_empty() {
            self.trigger_batch();
        }
    }
}
