//! NodeClaim lifecycles (launched → registered → initialized → terminated), spot interruptions,
//! and the disruption passes that run `disruption::decide` on the simulated clock.

use super::rng::SplitMix64;
use super::sim::Sim;
use super::state::{ended_by, reason_index, Ev, NState, PodState, SNode, SPod, STREAM_INTERRUPT, STREAM_LAUNCH};
use crate::disruption::PassFrom;
use crate::labels::ValueId;
use crate::model::{ExistingNode, LabelSet};
use crate::reason::{DisruptionReason, ReasonCode};
use crate::requirements::Requirements;
use crate::resources::Resources;
use crate::vocab::{TerminationReason, TimelineEvent};

/// The shortest nomination window, whatever the batch max duration (statenode.go,
/// nominationWindow).
const NOMINATION_WINDOW_MIN_SECONDS: i64 = 10;

impl Sim {
    /// Nodes and bound pods of the inputs become the state at time 0.
    pub fn adopt_initial_state(&mut self) {
        for i in 0..self.m.nodes.len() {
            // The static replicas the input misses are launched by Karpenter when the run
            // starts: simulated nodes (they keep the run going), not inputs.
            let static_launch = crate::static_pools::is_static_launch(&self.m, i);
            if static_launch && self.m.nodes[i].created.is_none() {
                self.m.nodes[i].created = Some(self.origin);
            }
            let n = self.m.nodes[i].clone();
            let pool = n.nodepool.as_deref().and_then(|np| self.m.node_pools.iter().position(|p| p.name == np));
            let it = n.instance_type.as_deref().and_then(|t| self.m.catalog.find(t));
            // The cost adds EKS Auto Mode's fee (catalog::auto_mode_fee) to the EC2 price.
            let fee = crate::catalog::auto_mode_fee::of(&self.m, pool, it).unwrap_or(0.0);
            let ec2 = crate::disruption::node_price(&self.m, &n).unwrap_or(0.0);
            let od = it.map(|i| self.m.catalog.types[i].on_demand_price).filter(|p| p.is_finite() && *p > 0.0).unwrap_or(ec2);
            let price = ec2 + fee;
            // A Node of the input may state only its allocatable: its pods' GPUs are paid for.
            let gpus = self.gpu_count(&n.capacity).max(self.gpu_count(&n.allocatable));
            let id = self.nodes.len();
            let initialized = n.initialized && !n.in_flight;
            self.nodes.push(SNode {
                name: n.name.clone(),
                pool,
                pool_name: n.nodepool.clone(),
                instance_type: n.instance_type.clone(),
                capacity_type: n.capacity_type.clone(),
                zone: n.zone.clone(),
                price,
                on_demand_price: od,
                gpus,
                capacity: n.capacity.clone(),
                allocatable: n.allocatable.clone(),
                launched: 0,
                registered: (!n.in_flight).then_some(0),
                registers_at: None,
                initialized: initialized.then_some(0),
                terminated: None,
                reason: None,
                state: if initialized {
                    NState::Initialized
                } else if n.in_flight {
                    NState::Launching
                } else {
                    NState::Registered
                },
                deleting: n.marked_for_deletion,
                deleting_reason: None,
                pods: Vec::new(),
                pods_ever: 0,
                empty_since: None,
                empty_seconds: 0,
                midx: Some(i),
                replaces: Vec::new(),
                grace: None,
                reservation: None,
                cost_before: 0.0,
                price_from: 0,
            });
            self.model_node_owner.push(id);
            self.node_by_name.insert(n.name.clone(), id);
            // The nodes of the inputs keep the run going (they cost money until consolidated
            // away): a cluster with no trace events runs to `end`, not 0 s.
            self.node_count_changed(1);
            if !initialized {
                // Half-started nodes of the inputs finish starting as launched ones would.
                let accel = gpus > 0 || self.has_accelerator(&n.capacity);
                let (reg, init) = self.latencies(id, accel);
                if n.in_flight {
                    self.nodes[id].registers_at = Some(reg);
                    self.push(reg, Ev::Registered(id));
                }
                self.push(if n.in_flight { reg + init } else { init }, Ev::Initialized(id));
            }
            if static_launch {
                self.node_count_changed(1);
            }
            self.metrics.node_launched(&self.nodes[id], !static_launch);
        }
        let owners: Vec<(usize, crate::model::Pod)> = self
            .m
            .pods
            .iter()
            .map(|p| (p.node_name.as_deref().and_then(|n| self.node_by_name.get(n).copied()).unwrap_or(usize::MAX), p.clone()))
            .collect();
        self.m.pods.clear();
        for (node, pod) in owners {
            let id = self.pods.len();
            let gpus = self.gpu_resources.iter().map(|&r| pod.requests.get(r)).sum::<i64>() / 1000;
            let running = !pod.terminal && node != usize::MAX;
            self.pods.push(SPod {
                key: pod.key(),
                workload: pod.workload.clone().unwrap_or_else(|| format!("Pod/{}/{}", pod.namespace, pod.name)),
                state: if running { PodState::Running } else { PodState::Finished },
                node: running.then_some(node),
                run: None,
                checkpoint: None,
                progress: 0,
                run_since: 0,
                submitted: 0,
                first_start: Some(0),
                finished: None,
                pending_since: 0,
                pending_total: 0,
                running_total: 0,
                lost: 0,
                restarts: 0,
                nodes: if running { vec![node] } else { Vec::new() },
                gen: 0,
                midx: None,
                unschedulable_reported: false,
                gpus,
                initial: true,
                instance: usize::MAX,
            });
            if running {
                self.model_add_pod(id, pod);
                self.nodes[node].pods.push(id);
                self.nodes[node].pods_ever += 1;
            }
        }
        for n in 0..self.nodes.len() {
            if self.nodes[n].pods.is_empty() && self.nodes[n].state == NState::Initialized {
                self.nodes[n].empty_since = Some(0);
            }
        }
    }

    pub fn gpu_count(&self, r: &Resources) -> i64 {
        self.gpu_resources.iter().map(|&g| r.get(g)).sum::<i64>() / 1000
    }

    pub(super) fn has_accelerator(&self, r: &Resources) -> bool {
        self.accel_resources.iter().any(|&a| r.get(a) > 0)
    }

    /// (start-up latency, device-plugin latency) for node `id`, from its own random stream.
    pub(super) fn latencies(&self, id: usize, accel: bool) -> (i64, i64) {
        let mut g = SplitMix64::derive(self.s.seed, STREAM_LAUNCH, id as u64);
        let r = if accel { self.s.gpu_startup_seconds } else { self.s.startup_seconds };
        let reg = g.range(r.min, r.max);
        let dp = if accel { g.range(self.s.device_plugin_seconds.min, self.s.device_plugin_seconds.max) } else { 0 };
        (self.now + reg, dp)
    }

    /// Launch a NodeClaim of `pool` as `it` (catalog index) in `zone` with capacity type `ct`.
    /// `reqs` are the planned claim's requirements (their single values become labels).
    #[allow(clippy::too_many_arguments)]
    pub fn launch_node(
        &mut self,
        pool: usize,
        it: usize,
        ct: ValueId,
        zone: ValueId,
        reqs: Option<&Requirements>,
        alloc: Resources,
        replaces: Option<Vec<usize>>,
        reservation: Option<u32>,
    ) -> usize {
        let np = &self.m.node_pools[pool];
        let pool_name = np.name.clone();
        let name = loop {
            self.pool_counters[pool] += 1;
            let candidate = format!("{pool_name}-{}", self.pool_counters[pool]);
            if !self.node_by_name.contains_key(&candidate) && !self.nodes.iter().any(|n| n.name == candidate) {
                break candidate;
            }
        };
        let mut labels = self.node_labels(pool, it, ct, zone, reqs, &name);
        // A reserved launch carries its reservation's labels (the offering's requirements).
        if let Some(r) = reservation.map(|r| &self.m.reservations[r as usize]) {
            let k = self.m.keys;
            labels.set(k.reservation_id, r.id_value);
            labels.set(k.reservation_type, r.type_value);
            labels.set(k.reservation_interruptible, r.interruptible_value);
        }
        let m = &self.m;
        let np = &m.node_pools[pool];
        let t = &m.catalog.types[it];
        let price = t
            .offerings
            .iter()
            .find(|o| o.zone == zone && o.capacity_type == ct && (reservation.is_none() || o.reservation == reservation))
            .map(|o| o.price)
            .unwrap_or(t.on_demand_price);
        let od = if t.on_demand_price.is_finite() && t.on_demand_price > 0.0 { t.on_demand_price } else { price };
        let price = price + crate::catalog::auto_mode_fee::of(m, Some(pool), Some(it)).unwrap_or(0.0);
        let mut taints = np.taints.clone();
        taints.extend(np.startup_taints.iter().cloned());
        let en = ExistingNode {
            name: name.clone(),
            labels,
            taints,
            allocatable: alloc.clone(),
            capacity: t.capacity.clone(),
            nodepool: Some(pool_name.clone()),
            instance_type: Some(t.name.clone()),
            zone: Some(m.interner.str(zone).to_string()),
            capacity_type: Some(m.interner.str(ct).to_string()),
            created: Some(self.origin + self.now),
            initialized: false,
            initialized_condition: None,
            ready: false,
            managed: true,
            in_flight: true,
            unlaunched: false,
            do_not_disrupt: false,
            marked_for_deletion: false,
            nodeclaim_name: Some(name.clone()),
            expire_after: None,
            last_pod_event: None,
            initialized_at: None,
            startup_taints: np.startup_taints.clone(),
            // Karpenter stamps a new NodeClaim with its NodePool's hash: a later edit of the
            // NodePool's template makes it drift.
            nodepool_hash: np.template_hash.clone().ok().map(|h| (h, crate::gohash::NODEPOOL_HASH_VERSION.to_string())),
            drifted: None,
            has_termination_grace_period: np.termination_grace_period.is_some(),
            conditions: Vec::new(),
            termination_grace_period: np.termination_grace_period,
            do_not_repair: false,
            registered: false,
            rebooting: false,
            reboot_finished: None,
            nominated_until: None,
            document: 0,
            source: None,
        };
        let capacity = t.capacity.clone();
        let gpus = self.gpu_count(&capacity);
        let accel = gpus > 0 || self.has_accelerator(&capacity);
        let grace = self.m.node_pools[pool].termination_grace_period.or(self.s.termination_grace_period_seconds);
        let id = self.nodes.len();
        self.nodes.push(SNode {
            name: name.clone(),
            pool: Some(pool),
            pool_name: Some(pool_name),
            instance_type: en.instance_type.clone(),
            capacity_type: en.capacity_type.clone(),
            zone: en.zone.clone(),
            price,
            on_demand_price: od,
            gpus,
            capacity,
            allocatable: alloc,
            launched: self.now,
            registered: None,
            registers_at: None,
            initialized: None,
            terminated: None,
            reason: None,
            state: NState::Launching,
            deleting: false,
            deleting_reason: None,
            pods: Vec::new(),
            pods_ever: 0,
            empty_since: None,
            empty_seconds: 0,
            midx: Some(self.m.nodes.len()),
            replaces: replaces.unwrap_or_default(),
            grace,
            reservation: reservation.map(|r| r as usize),
            cost_before: 0.0,
            price_from: self.now,
        });
        self.m.nodes.push(en);
        self.model_node_owner.push(id);
        self.node_by_name.insert(name.clone(), id);
        self.node_count_changed(1);
        let (reg, dp) = self.latencies(id, accel);
        self.nodes[id].registers_at = Some(reg);
        self.push(reg, Ev::Registered(id));
        self.push(reg + dp, Ev::Initialized(id));
        if self.nodes[id].capacity_type.as_deref() == Some(crate::reason::CapacityType::Spot.as_str())
            && self.s.spot_interruption_rate_per_hour > 0.0
        {
            let mut g = SplitMix64::derive(self.s.seed, STREAM_INTERRUPT, id as u64);
            let wait = g.exponential(3600.0 / self.s.spot_interruption_rate_per_hour);
            if wait < (self.end - self.now + 1) as f64 {
                let at = self.now + (wait.ceil() as i64).max(1);
                self.push(at, Ev::Interrupt(id));
            }
        }
        let n = &self.nodes[id];
        let detail = format!(
            "{} {} in {} at ${}/h",
            n.capacity_type.clone().unwrap_or_default(),
            n.instance_type.clone().unwrap_or_default(),
            n.zone.clone().unwrap_or_default(),
            crate::price::round_price(n.price)
        );
        let detail = match reservation {
            Some(r) => format!("{detail}, capacity reservation {}", self.m.reservations[r as usize].id),
            None => detail,
        };
        if let Some(r) = reservation {
            self.reservation_launched(r as usize);
        }
        self.metrics.node_launched(&self.nodes[id], false);
        self.log(TimelineEvent::NodeclaimLaunched, name, None, None, Some(detail));
        self.mark_dirty();
        id
    }

    /// Labels of a launched node, as Karpenter writes them: the NodePool's template labels,
    /// single values of custom requirements, the instance type's labels, zone, capacity type and
    /// hostname.
    fn node_labels(&mut self, pool: usize, it: usize, ct: ValueId, zone: ValueId, reqs: Option<&Requirements>, name: &str) -> LabelSet {
        let m = &self.m;
        let np = &m.node_pools[pool];
        let mut pairs: Vec<(u32, u32)> = np.labels.iter().collect();
        let extra = m.custom_requirement_values(np, reqs.unwrap_or(&np.requirements));
        pairs.extend(m.catalog.types[it].labels.iter());
        pairs.push((m.keys.zone, zone));
        pairs.push((m.keys.capacity_type, ct));
        for (k, v) in extra {
            let v = self.m.interner.intern(&v);
            pairs.push((k, v));
        }
        let host = self.m.interner.intern(name);
        pairs.push((self.m.keys.hostname, host));
        LabelSet::from_pairs(pairs)
    }

    fn model_node(&mut self, n: usize) -> Option<&mut ExistingNode> {
        self.nodes[n].midx.map(|i| &mut self.m.nodes[i])
    }

    pub fn node_registered(&mut self, n: usize) {
        if self.nodes[n].state != NState::Launching {
            return;
        }
        self.nodes[n].state = NState::Registered;
        self.nodes[n].registered = Some(self.now);
        if let Some(en) = self.model_node(n) {
            en.registered = true;
            en.in_flight = false;
            en.ready = true;
        }
        let name = self.nodes[n].name.clone();
        self.log(TimelineEvent::NodeclaimRegistered, name, None, None, None);
        for p in self.nodes[n].pods.clone() {
            if self.pods[p].state == PodState::Nominated {
                self.bind(p);
            }
        }
    }

    pub fn node_initialized(&mut self, n: usize) {
        if !matches!(self.nodes[n].state, NState::Registered | NState::Launching) {
            return;
        }
        if self.nodes[n].state == NState::Launching {
            self.node_registered(n);
        }
        let abs = self.abs_now();
        self.nodes[n].state = NState::Initialized;
        self.nodes[n].initialized = Some(self.now);
        let pool = self.nodes[n].pool;
        let taints = pool.map(|p| self.m.node_pools[p].taints.clone());
        if let Some(en) = self.model_node(n) {
            en.initialized = true;
            en.initialized_at = Some(abs);
            // The startup taints are removed once the node is initialized.
            if let Some(t) = taints {
                en.taints = t;
            }
        }
        let name = self.nodes[n].name.clone();
        let detail = (self.nodes[n].gpus > 0).then(|| "device plugin registered the GPUs".to_string());
        self.log(TimelineEvent::NodeclaimInitialized, name, None, None, detail);
        for p in self.nodes[n].pods.clone() {
            match self.pods[p].state {
                PodState::Nominated => {
                    self.bind(p);
                    self.start(p);
                }
                PodState::Bound => self.start(p),
                _ => {}
            }
        }
        // kube-scheduler binds pending pods to it at once (ca_loop.rs).
        #[cfg(feature = "cluster-autoscaler")]
        if self.ca.is_some() {
            self.ca_node_ready();
        }
        if self.nodes[n].pods.is_empty() {
            self.nodes[n].empty_since = Some(self.now);
        }
        // A replacement is ready: drain and delete the nodes it replaces.
        // The reason is the one the old node was cordoned with (drift replaces too).
        for old in std::mem::take(&mut self.nodes[n].replaces) {
            let reason = self.nodes[old].deleting_reason.unwrap_or(TerminationReason::Underutilized);
            self.terminate(old, reason);
        }
        self.mark_dirty();
        // The buffers' virtual pods may now sit on it (buffers.rs).
        self.buffers_changed();
    }

    pub fn node_gains_pod(&mut self, n: usize, p: usize) {
        let now = self.now;
        let abs = self.abs_now();
        // A pod arriving only takes room: it cannot make consolidation possible, except by
        // taking its node out of the candidates (its consolidateAfter restarts), which can hand
        // a budget slot to another candidate. So only a node that could have been a candidate
        // asks for a new disruption pass; this keeps busy clusters from re-running every pass.
        let could_be_candidate = self.nodes[n].state == NState::Initialized
            && !self.nodes[n].deleting
            && self.nodes[n].midx.is_some_and(|i| {
                let en = &self.m.nodes[i];
                let after = self.nodes[n].pool.and_then(|p| self.m.node_pools[p].disruption.consolidate_after);
                match (after, en.consolidation_reference()) {
                    (Some(a), Some(r)) => abs - r >= a,
                    (Some(_), None) => true,
                    (None, _) => false,
                }
            });
        let node = &mut self.nodes[n];
        if let Some(e) = node.empty_since.take() {
            node.empty_seconds += now - e;
        }
        node.pods.push(p);
        node.pods_ever += 1;
        if let Some(en) = self.model_node(n) {
            en.last_pod_event = Some(abs);
        }
        // The Cluster Autoscaler's next loop finds the node needed again (ca_loop.rs).
        #[cfg(feature = "cluster-autoscaler")]
        let could_be_candidate = could_be_candidate || self.ca.is_some();
        if could_be_candidate {
            self.mark_dirty();
        }
    }

    /// A provisioning pass nominated node `n` for a real pending pod: Karpenter keeps it out of
    /// disruption for max(2 × batch max duration, 10 s) (statenode.go, nominationWindow), and
    /// a later nomination extends the window. The pass after the window is due then
    /// (next_instant).
    pub fn hold_nominated(&mut self, n: usize) {
        let until = self.abs_now() + (2 * self.s.batch_max_seconds).max(NOMINATION_WINDOW_MIN_SECONDS);
        if let Some(en) = self.model_node(n) {
            en.nominated_until = Some(until);
        }
    }

    pub fn node_loses_pod(&mut self, n: usize, p: usize) {
        let now = self.now;
        let abs = self.abs_now();
        let node = &mut self.nodes[n];
        node.pods.retain(|&x| x != p);
        let empty = node.pods.is_empty();
        if empty && node.state == NState::Initialized && node.empty_since.is_none() {
            node.empty_since = Some(now);
        }
        let finish_drain = empty && node.deleting && node.state != NState::Terminated;
        let reason = node.deleting_reason;
        if let Some(en) = self.model_node(n) {
            en.last_pod_event = Some(abs);
        }
        // An expiring node waiting for do-not-disrupt pods goes once the last one is done.
        if finish_drain {
            if let Some(r) = reason {
                if r == TerminationReason::Expired || r == super::state::CAPACITY_BLOCK_EXPIRING {
                    self.push(now, Ev::Terminate(n, reason_index(r)));
                }
            }
        }
    }

    fn cordon(&mut self, n: usize, reason: TerminationReason) {
        self.nodes[n].deleting = true;
        self.nodes[n].deleting_reason = Some(reason);
        if let Some(en) = self.model_node(n) {
            en.marked_for_deletion = true;
        }
        // A static NodeClaim being deleted is replaced at once (static_nodes.rs).
        self.static_top_up();
        // Buffer capacity on it is gone: the provisioner looks again (buffers.rs).
        self.buffers_changed();
    }

    /// Drain (evict every pod) and delete the instance now.
    pub fn terminate(&mut self, n: usize, reason: TerminationReason) {
        if self.nodes[n].state == NState::Terminated {
            return;
        }
        for p in self.nodes[n].pods.clone() {
            self.evict(p, reason.as_str());
        }
        let now = self.now;
        let node = &mut self.nodes[n];
        if let Some(e) = node.empty_since.take() {
            node.empty_seconds += now - e;
        }
        node.state = NState::Terminated;
        node.terminated = Some(now);
        node.reason = Some(reason);
        node.deleting = true;
        let freed = node.reservation;
        // A replacement that never came up releases the nodes it was going to replace.
        for old in std::mem::take(&mut node.replaces) {
            if self.nodes[old].state != NState::Terminated {
                self.nodes[old].deleting = false;
                self.nodes[old].deleting_reason = None;
                if let Some(en) = self.model_node(old) {
                    en.marked_for_deletion = false;
                }
            }
        }
        if let Some(i) = self.nodes[n].midx.take() {
            self.m.nodes.swap_remove(i);
            self.model_node_owner.swap_remove(i);
            if i < self.model_node_owner.len() {
                let moved = self.model_node_owner[i];
                self.nodes[moved].midx = Some(i);
            }
        }
        let name = self.nodes[n].name.clone();
        self.node_by_name.remove(&name);
        self.node_count_changed(-1);
        self.metrics.node_terminated(&self.nodes[n], reason.as_str());
        self.log(TimelineEvent::NodeclaimTerminated, name, None, Some(reason.to_string()), None);
        if let Some(r) = freed {
            // MarkTerminated: the slot is free again (reservations.rs).
            self.reservation_freed(r, n);
        }
        self.static_top_up();
        self.capacity_freed();
    }

    /// A spot interruption notice: cordon, evict every pod (work since the last checkpoint is
    /// lost), and the instance goes when the notice runs out.
    pub fn interrupt(&mut self, n: usize) {
        let detail = format!("{}s notice", self.s.interruption_notice_seconds);
        self.interrupt_as(n, TerminationReason::Interrupted, detail);
    }

    /// An EC2 interruption notice for node `n` (`reason`: `interrupted` for spot,
    /// `reservation-interrupted` for an interruptible reservation): Karpenter's interruption
    /// controller deletes the NodeClaim (CordonAndDrain), and EC2 terminates the instance when
    /// the notice runs out. False when the node is gone or already has this notice.
    pub fn interrupt_as(&mut self, n: usize, reason: TerminationReason, detail: String) -> bool {
        if self.nodes[n].state == NState::Terminated || self.nodes[n].deleting_reason == Some(reason) {
            return false;
        }
        let name = self.nodes[n].name.clone();
        self.log(TimelineEvent::NodeclaimInterrupted, name.clone(), None, Some(reason.as_str().into()), Some(detail));
        self.metrics.disrupted(reason.as_str());
        self.cordon(n, reason);
        for p in self.nodes[n].pods.clone() {
            self.evict(p, reason.as_str());
        }
        let at = self.now + self.s.interruption_notice_seconds;
        self.push(at, Ev::Terminate(n, reason_index(reason)));
        true
    }

    /// One pass of the disruption controller: the `consolidate` decision at the simulated now.
    /// While a command waits out its validation the controller is blocked in it, and only
    /// expiration (the NodeClaim's own controller) acts.
    pub fn disruption_pass(&mut self) {
        // A Cluster Autoscaler run: its scan loop instead (ca_loop.rs).
        #[cfg(feature = "cluster-autoscaler")]
        if self.ca.is_some() {
            return self.ca_scan();
        }
        let from = if self.command.is_some() { PassFrom::ExpirationOnly } else { PassFrom::Start };
        self.pass_from(from);
    }

    /// A pass of the disruption controller from method `from` on. An emptiness or
    /// consolidation command is not carried out now: it waits for its validation
    /// (validation.rs). Any other command is carried out at once.
    pub(super) fn pass_from(&mut self, from: PassFrom) {
        let abs = self.abs_now();
        // Only the decision and the budget verdicts are used below: `decide_action` gives the same.
        // The simulation changes only nodes, pods and interned values: one memo serves all passes.
        // The buffers' virtual pods are pending pods to consolidation's simulation (buffers.rs).
        let first_virtual = (!self.virtual_pods.is_empty()).then(|| self.add_virtual_pods());
        let d = crate::disruption::decide_action_from(&self.m, abs, &mut self.baseline_memo, from);
        if let Some(first) = first_virtual {
            self.remove_virtual_pods(first);
        }
        let acted = d.decision != crate::api::Action::None;
        if acted && crate::disruption::is_validated(d.method) {
            self.await_validation(d);
        } else if acted {
            self.carry_out(&d);
            // Karpenter's controller requeues at once after a command (controller.go,
            // `RequeueImmediately`); expiration, outside it, leaves the pass to run as well. A
            // pass while a command waits is for expiration alone: the validation runs the next.
            if from != PassFrom::ExpirationOnly {
                self.request_pass(self.now);
            }
        } else if d.nodes.iter().any(|v| v.reasons.iter().any(|r| r.code == ReasonCode::Budget)) {
            // When to look again: while a budget holds nodes at every poll (its window can end
            // any minute); else exactly when a node becomes consolidatable or expires. State
            // changes request a pass themselves (mark_dirty).
            // Without schedules a budget only changes with the cluster (which requests a pass
            // itself). Cron windows open and close on minute boundaries (plus whole-minute
            // durations), so looking once a minute is as exact as polling and 6x cheaper.
            let poll = self.s.disruption_poll_seconds;
            let tick = (self.now / poll + 1) * poll;
            let budgets = self.m.node_pools.iter().flat_map(|p| p.disruption.budgets.iter()).filter(|b| b.schedule.is_some());
            let mut scheduled = false;
            let mut minute_aligned = true;
            for b in budgets {
                scheduled = true;
                minute_aligned &= b.duration.unwrap_or(0) % 60 == 0;
            }
            if scheduled {
                let next = if minute_aligned { ((abs / 60) + 1) * 60 - self.origin } else { tick };
                self.request_pass(next.max(self.now + 1));
            }
        }
        if let Some(t) = self.next_instant(abs) {
            self.request_pass(t - self.origin);
        }
    }

    /// Carries out a disruption command now: its nodes' disruption logged, replacements
    /// launched (the old nodes drained once the first is ready), or the nodes drained and gone.
    pub(super) fn carry_out(&mut self, d: &crate::api::Decision) {
        let reason = d.reason.unwrap_or(DisruptionReason::Underutilized);
        let targets: Vec<usize> = d.disrupted_nodes.iter().filter_map(|n| self.node_by_name.get(n).copied()).collect();
        for &n in &targets {
            let name = self.nodes[n].name.clone();
            self.log(TimelineEvent::NodeclaimDisrupted, name, None, Some(reason.as_str().into()), Some(d.command.clone()));
            self.metrics.disrupted(reason.as_str());
        }
        match (&d.replacement, reason) {
            (Some(r), _) => {
                let launched = self.launch_replacement(r, &targets);
                // Drift may need more than one new node; the first one's readiness drains
                // the candidate, the others only add room.
                for more in &d.more_replacements {
                    self.launch_replacement(more, &[]);
                }
                for &n in &targets {
                    self.cordon(n, ended_by(reason));
                    if launched.is_none() {
                        self.terminate(n, ended_by(reason));
                    }
                }
            }
            (None, DisruptionReason::Expired) => {
                for &n in &targets {
                    self.expire(n);
                }
            }
            (None, r) => {
                for &n in &targets {
                    self.terminate(n, ended_by(r));
                }
            }
        }
    }

    /// The next absolute time at which a node becomes consolidatable, expires, or leaves its
    /// nomination window.
    pub(super) fn next_instant(&self, abs: i64) -> Option<i64> {
        let m = &self.m;
        let mut best: Option<i64> = None;
        for n in &m.nodes {
            if !n.managed || n.marked_for_deletion {
                continue;
            }
            let Some(pool) = n.nodepool.as_deref().and_then(|np| m.node_pools.iter().position(|p| p.name == np)) else { continue };
            let np = &m.node_pools[pool];
            let mut cands = Vec::new();
            if let (Some(after), Some(r)) = (np.disruption.consolidate_after, n.consolidation_reference()) {
                cands.push(r + after);
            }
            let expire = n.expire_after.unwrap_or(np.expire_after);
            if let (Some(e), Some(c)) = (expire, n.created) {
                cands.push(c.saturating_add(e));
            }
            // A repair policy's toleration ending (NodeRepair gate, disruption/repair.rs).
            if m.settings.feature_gates.node_repair && !n.conditions.is_empty() {
                cands.extend(crate::disruption::next_repair_at(m, n, abs));
            }
            // A nomination window ending on an initialized node (the window of a node still
            // starting up does not matter: it is no candidate until initialized, which
            // requests a pass itself).
            if n.initialized {
                cands.extend(n.nominated_until);
            }
            for c in cands.into_iter().filter(|&c| c > abs) {
                best = Some(best.map_or(c, |b: i64| b.min(c)));
            }
        }
        best
    }

    /// expireAfter is forceful, but draining waits for do-not-disrupt pods until the
    /// terminationGracePeriod (if any) runs out.
    fn expire(&mut self, n: usize) {
        self.drain_and_delete(n, TerminationReason::Expired);
    }

    /// Delete a NodeClaim the way its termination controller does (expiry, a capacity block
    /// expiring): cordon, evict every pod but running do-not-disrupt ones, and terminate once
    /// those are done or the terminationGracePeriod (if any) runs out.
    pub fn drain_and_delete(&mut self, n: usize, reason: TerminationReason) {
        let expired = reason;
        self.cordon(n, expired);
        let mut waiting = false;
        for p in self.nodes[n].pods.clone() {
            let blocks = self.pods[p].midx.is_some_and(|i| self.m.pods[i].do_not_disrupt) && self.pods[p].state == PodState::Running;
            if blocks {
                waiting = true;
            } else {
                self.evict(p, expired.as_str());
            }
        }
        if !waiting {
            self.terminate(n, expired);
        } else if let Some(g) = self.nodes[n].grace {
            let at = self.now + g;
            self.push(at, Ev::Terminate(n, reason_index(expired)));
        }
    }

    fn launch_replacement(&mut self, r: &crate::api::Replacement, replaces: &[usize]) -> Option<usize> {
        // The decision was made on this simulation's model: its indices are ours.
        let chosen = r.launch.as_ref()?;
        let (pool, it, ct, zone) = (chosen.pool, chosen.launch.it as usize, chosen.launch.capacity_type, chosen.launch.zone);
        if self.templates_cache[pool].is_none() {
            self.templates_cache[pool] = Some(crate::scheduling::claim::build_template(pool, &self.m));
        }
        let alloc = match self.templates_cache[pool].as_ref().and_then(|t| t.as_ref()) {
            Some(t) => t.alloc(it as u32, &self.m).clone(),
            None => self.m.catalog.types[it].allocatable.clone(),
        };
        Some(self.launch_node(pool, it, ct, zone, None, alloc, Some(replaces.to_vec()), chosen.launch.reservation))
    }
}
