//! The Cluster Autoscaler in the simulator: the same clock, trace, pods, node lifecycles and
//! metrics as Karpenter's runs, with the two autoscaling steps swapped
//! (`Autoscaler::ClusterAutoscaler`): the provisioning batch becomes kube-scheduler binding
//! pending pods to ready nodes, and the disruption pass becomes the Cluster Autoscaler's scan
//! loop (scale-up, then scale-down), both asked of `cluster_autoscaler::stepper`.
//!
//! Timing, from cluster-autoscaler's flags and static_autoscaler.go:
//! - a scan loop runs every 10 s (`--scan-interval`); the simulator runs one on the 10 s grid
//!   whenever the cluster changed, and when a timer below runs out (between those, a loop would
//!   find what the last one found);
//! - one scale-up per loop; a pod pending when a loop runs is in its scale-up;
//! - scale-down waits `--scale-down-delay-after-add` (10 min) after a scale-up (the newest node
//!   of any group), `--scale-down-delay-after-delete` (the scan interval) after a removal;
//!   `--scale-down-delay-after-failure` (3 min) never applies: a simulated deletion never fails;
//! - a node is removed once unneeded for `--scale-down-unneeded-time` (10 min), counted from the
//!   first loop that found it unneeded, reset by any loop that does not.
//! - a new node of a group is its first instance type in its first zone (the Auto Scaling
//!   group's own choice among its types and zones is not simulated), with the kubelet's
//!   allocatable as nodecast's catalog computes it.

use super::rng::SplitMix64;
use super::sim::Sim;
use super::state::{Ev, NState, SNode, STREAM_INTERRUPT};
use crate::cluster_autoscaler::stepper::Stepper;
use crate::cluster_autoscaler::{ScaleDownCode, ScaleDownVerdict};
use crate::model::ExistingNode;
use crate::resources::PODS;
use crate::vocab::{TerminationReason, TimelineEvent};
use std::collections::HashMap;

pub use super::ca_state::{CaInput, CaLog, CaRun, SCAN_SECONDS};

impl Sim {
    fn ca(&mut self) -> &mut CaRun {
        self.ca.as_mut().expect("only called in a Cluster Autoscaler run")
    }

    /// The groups' current nodes (`desiredCapacity`, less the group's Nodes the input gives),
    /// up and ready at time 0.
    pub fn ca_start(&mut self) {
        let ca = self.ca.as_ref().expect("a Cluster Autoscaler run");
        let mut missing: Vec<i64> = ca.stepper.groups().iter().map(|g| g.desired).collect();
        for n in &self.m.nodes {
            if let Some(g) = ca.stepper.group_of(&self.m, n) {
                missing[g] -= 1;
            }
        }
        for (g, &n) in missing.iter().enumerate() {
            for _ in 0..n.max(0) {
                self.launch_group_node(g, true);
            }
        }
        self.request_pass(0);
    }

    /// Launch one node of group `g` (`up`: a current node of the input, ready at once).
    fn launch_group_node(&mut self, g: usize, up: bool) -> usize {
        let ca = self.ca.as_mut().expect("a Cluster Autoscaler run");
        let group = ca.stepper.groups()[g].clone();
        let (it_name, zone, price, labels, taints) = ca.stepper.template(g);
        let (it_name, zone, mut labels, taints) = (it_name.to_string(), zone.to_string(), labels.clone(), taints.to_vec());
        let name = loop {
            ca.counters[g] += 1;
            let candidate = format!("{}-{}", group.name, ca.counters[g]);
            if !self.node_by_name.contains_key(&candidate) && !self.nodes.iter().any(|n| n.name == candidate) {
                break candidate;
            }
        };
        let host = self.m.interner.intern(&name);
        labels.set(self.m.keys.hostname, host);
        // The node as its group makes it: a managed group's nodes carry EKS's node-group label
        // (in the template); a self-managed eksctl group's carry eksctl's, which its ASG
        // template lacks. The Cluster Autoscaler knows a node's group from its ASG; nodecast
        // from these labels, so without it a launched node would belong to no group: never
        // counted against maxSize (a scale-up every loop) nor scaled down.
        if !group.managed {
            let key = self.m.interner.intern(crate::cluster_autoscaler::EKSCTL_GROUP_LABEL);
            let value = self.m.interner.intern(&group.name);
            labels.set(key, value);
        }
        // Stepper::new checked the type is in the catalog; engine::run kept it when pruning.
        let it = self.m.catalog.find(&it_name).expect("the group's type is in the catalog");
        let t = &self.m.catalog.types[it];
        let mut allocatable = t.allocatable.clone();
        if let Some(mp) = group.max_pods {
            allocatable.set(PODS, allocatable.get(PODS).min(mp * 1000));
        }
        let capacity = t.capacity.clone();
        let od = if t.on_demand_price.is_finite() && t.on_demand_price > 0.0 { t.on_demand_price } else { price };
        let capacity_type = if group.spot { "spot" } else { "on-demand" }.to_string();
        let created = self.origin + self.now;
        self.m.nodes.push(ExistingNode {
            name: name.clone(),
            labels,
            taints,
            allocatable: allocatable.clone(),
            capacity: capacity.clone(),
            nodepool: None,
            instance_type: Some(it_name.clone()),
            zone: Some(zone.clone()),
            capacity_type: Some(capacity_type.clone()),
            created: Some(created),
            initialized: up,
            initialized_condition: None,
            ready: up,
            managed: false,
            in_flight: !up,
            unlaunched: false,
            do_not_disrupt: false,
            marked_for_deletion: false,
            nodeclaim_name: None,
            expire_after: None,
            last_pod_event: None,
            initialized_at: up.then_some(created),
            startup_taints: Vec::new(),
            nodepool_hash: None,
            drifted: None,
            has_termination_grace_period: false,
            conditions: Vec::new(),
            termination_grace_period: None,
            do_not_repair: false,
            registered: up,
            rebooting: false,
            reboot_finished: None,
            nominated_until: None,
            document: 0,
            source: None,
        });
        let gpus = self.gpu_count(&capacity);
        let accel = gpus > 0 || self.has_accelerator(&capacity);
        let id = self.nodes.len();
        self.nodes.push(SNode {
            name: name.clone(),
            pool: None,
            pool_name: Some(group.name.clone()),
            instance_type: Some(it_name.clone()),
            capacity_type: Some(capacity_type.clone()),
            zone: Some(zone.clone()),
            price,
            on_demand_price: od,
            gpus,
            capacity,
            allocatable,
            launched: self.now,
            registered: up.then_some(self.now),
            registers_at: None,
            initialized: up.then_some(self.now),
            terminated: None,
            reason: None,
            state: if up { NState::Initialized } else { NState::Launching },
            deleting: false,
            deleting_reason: None,
            pods: Vec::new(),
            pods_ever: 0,
            empty_since: up.then_some(self.now),
            empty_seconds: 0,
            midx: Some(self.m.nodes.len() - 1),
            replaces: Vec::new(),
            grace: None,
            reservation: None,
            cost_before: 0.0,
            price_from: self.now,
        });
        self.model_node_owner.push(id);
        self.node_by_name.insert(name.clone(), id);
        self.node_count_changed(1);
        if !up {
            let (reg, dp) = self.latencies(id, accel);
            self.nodes[id].registers_at = Some(reg);
            self.push(reg, Ev::Registered(id));
            self.push(reg + dp, Ev::Initialized(id));
        }
        if group.spot && self.s.spot_interruption_rate_per_hour > 0.0 {
            let mut r = SplitMix64::derive(self.s.seed, STREAM_INTERRUPT, id as u64);
            let wait = r.exponential(3600.0 / self.s.spot_interruption_rate_per_hour);
            if wait < (self.end - self.now + 1) as f64 {
                let at = self.now + (wait.ceil() as i64).max(1);
                self.push(at, Ev::Interrupt(id));
            }
        }
        self.metrics.node_launched(&self.nodes[id], up);
        let detail = format!("node group {}: {capacity_type} {it_name} in {zone} at ${}/h", group.name, crate::price::round_price(price));
        self.log(TimelineEvent::NodeclaimLaunched, name, None, None, Some(detail));
        id
    }

    /// kube-scheduler binds the pending pods it can to ready nodes, in pod order.
    pub fn ca_bind(&mut self) {
        self.ca_learn();
        let pending: Vec<usize> = self.pending.iter().filter_map(|&p| self.pods[p].midx).collect();
        if pending.is_empty() {
            return;
        }
        let binds = self.ca.as_ref().expect("a Cluster Autoscaler run").stepper.bind(&self.m, &pending);
        let binds: Vec<(usize, usize)> = binds.into_iter().map(|(mp, mn)| (self.model_pod_owner[mp], self.model_node_owner[mn])).collect();
        for (p, n) in binds {
            self.nominate(p, n);
        }
    }

    /// The node-info cache: a ready node of a group is the group's template from now on.
    fn ca_learn(&mut self) {
        let mut ca = self.ca.take().expect("a Cluster Autoscaler run");
        for n in &self.m.nodes {
            if n.initialized && !n.in_flight {
                if let Some(g) = ca.stepper.group_of(&self.m, n) {
                    ca.stepper.learn(g, &n.allocatable);
                }
            }
        }
        self.ca = Some(ca);
    }

    /// One scan loop: kube-scheduler's binds first (a loop sees the pods it left pending), then
    /// the scale-up, then the scale-down; and when the next loop may decide something new.
    pub fn ca_scan(&mut self) {
        self.ca_bind();
        let abs = self.abs_now();
        let pending: Vec<usize> = self.pending.iter().filter_map(|&p| self.pods[p].midx).collect();
        let launch = if pending.is_empty() { None } else { self.ca.as_ref().and_then(|c| c.stepper.scale_up(&self.m, &pending)) };
        let mut next: Option<i64> = None;
        if let Some(l) = launch {
            let name = self.ca().stepper.groups()[l.group].name.clone();
            let now = self.now;
            let mut log = self.ca().log.borrow_mut();
            log.random_ties |= !l.tied_with.is_empty();
            log.scale_ups.push((now, name, l.nodes, l.decided_by, l.tied_with));
            drop(log);
            for _ in 0..l.nodes {
                self.launch_group_node(l.group, false);
            }
            // Pods the new nodes cannot take may need another group: the next loop looks.
            next = Some(self.now + SCAN_SECONDS);
        }
        let resumes = self.ca().last_delete.map_or(i64::MIN, |t| t + SCAN_SECONDS);
        if abs >= resumes {
            if let Some(t) = self.ca_scale_down(abs) {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        } else {
            next = Some(next.map_or(resumes - self.origin, |n| n.min(resumes - self.origin)));
        }
        if let Some(t) = next {
            // On the scan grid, and never now again.
            let t = ((t + SCAN_SECONDS - 1) / SCAN_SECONDS * SCAN_SECONDS).max(self.now + 1);
            self.request_pass(t);
        }
    }

    /// The scale-down of one loop at `abs`; the simulated second of the next loop a timer
    /// (unneeded time, delay after add) makes worth running, if any.
    fn ca_scale_down(&mut self, abs: i64) -> Option<i64> {
        let ca = self.ca.as_ref().expect("a Cluster Autoscaler run");
        let since: Vec<Option<i64>> = self.m.nodes.iter().map(|n| ca.unneeded.get(&n.name).copied()).collect();
        // Stepper::new built every template: the decision has no input left to refuse.
        let Ok(d) = ca.stepper.scale_down(&self.m, abs, &since) else { return None };
        let mut unneeded = HashMap::new();
        let mut remove: Vec<(usize, TerminationReason)> = Vec::new();
        let mut next: Option<i64> = None;
        // The answer lists the model's nodes in order.
        for (v, &earlier) in d.nodes.iter().zip(&since) {
            match v.verdict {
                ScaleDownVerdict::Keep => {}
                ScaleDownVerdict::Unneeded | ScaleDownVerdict::Remove => {
                    unneeded.insert(v.name.clone(), earlier.unwrap_or(abs));
                }
            }
            match (v.verdict, v.loop_) {
                // Later loops (10 s apart) re-check with this one's removals done.
                (ScaleDownVerdict::Remove, Some(1)) => {
                    let reason = if v.code == ScaleDownCode::Empty { TerminationReason::Empty } else { TerminationReason::Underutilized };
                    if let Some(&n) = self.node_by_name.get(&v.name) {
                        remove.push((n, reason));
                    }
                }
                (ScaleDownVerdict::Remove, _) => next = Some(self.now + SCAN_SECONDS),
                (ScaleDownVerdict::Unneeded, _) => {
                    if let Some(at) = v.removable_at.as_deref().and_then(|t| t.parse::<jiff::Timestamp>().ok()) {
                        let t = at.as_second() - self.origin;
                        next = Some(next.map_or(t, |n| n.min(t)));
                    }
                }
                _ => {}
            }
        }
        let ca = self.ca();
        ca.unneeded = unneeded;
        if !remove.is_empty() {
            ca.last_delete = Some(abs);
            let mut log = ca.log.borrow_mut();
            for &(_, r) in &remove {
                if r == TerminationReason::Empty {
                    log.removed_empty += 1;
                } else {
                    log.removed_underutilized += 1;
                }
            }
        }
        if !remove.is_empty() {
            next = Some(self.now + SCAN_SECONDS);
        }
        for (n, reason) in remove {
            let name = self.nodes[n].name.clone();
            self.log(
                TimelineEvent::NodeclaimDisrupted,
                name,
                None,
                Some(reason.as_str().into()),
                Some("cluster-autoscaler scale-down".into()),
            );
            self.metrics.disrupted(reason.as_str());
            self.terminate(n, reason);
        }
        next
    }

    /// A node of the run became ready: kube-scheduler binds what fits at once.
    pub fn ca_node_ready(&mut self) {
        if !self.pending.is_empty() {
            self.ca_bind();
        }
    }
}

/// The Cluster Autoscaler's run over `p`: its node groups' templates (interned into the
/// model), and the model without NodePools (the Cluster Autoscaler side has only node
/// groups). Karpenter-only parts of a trace or the inputs are refused, not ignored.
pub fn prepare(p: &mut super::workloads::Prepared, c: CaInput) -> Result<CaRun, Vec<crate::error::InputError>> {
    use crate::error::InputError;
    if p.events.iter().any(|e| matches!(e.action, super::workloads::SimAction::EditNodePool { .. })) {
        return Err(vec![InputError::new(
            "not-simulated",
            "the trace edits a NodePool: the Cluster Autoscaler side of the comparison has node groups, not NodePools",
        )
        .path("trace")
        .help("compare over a trace without nodePool events")]);
    }
    if !p.virtual_pods.is_empty() {
        return Err(vec![InputError::new(
            "not-simulated",
            "CapacityBuffers (feature gate CapacityBuffer) are Karpenter's: the Cluster Autoscaler side has no counterpart simulated",
        )
        .path("settings.featureGates.CapacityBuffer")
        .help("compare without CapacityBuffer objects")]);
    }
    p.model.node_pools.clear();
    let stepper = Stepper::new(&mut p.model, c.input, c.facts)?;
    Ok(CaRun::new(stepper, c.log))
}
