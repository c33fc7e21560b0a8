//! The clock, the event queue, pods and the provisioning batches. Node lifecycles are in
//! `nodes.rs`, disruption passes in `nodes.rs` too (they act on nodes), metrics in `metrics.rs`;
//! the `Sim` struct they all extend is in `sim.rs`, the objects' state in `state.rs`.

use super::rng::SplitMix64;
use super::settings::SimSettings;
use super::sim::{Instance, Sim};
use super::state::*;
use super::trace::{RunTime, Trace, DEFAULT_START};
use super::workloads::{Kind, Prepared, SimAction};
use super::{Simulation, TimelineEntry};
use crate::api::Warning;
use crate::error::InputError;
use crate::model::Model;
use crate::reason::ReasonCode;
use crate::scheduling::{self, Placement};
use crate::vocab::TimelineEvent;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

/// Keep only the instance types some NodePool can launch (or an input node runs). Every
/// provisioning and consolidation pass rebuilds the NodePool templates over the whole catalog;
/// the types no template admits can never be chosen, so dropping them once changes no decision
/// and makes each of the thousands of passes of a week-long simulation ~40x cheaper on the
/// 1345-type AWS catalog. `edits`: the NodePools the trace puts in later (edits.rs), whose
/// types must stay too.
fn prune_catalog(m: &mut Model, edits: &[crate::model::NodePool], also: &[String]) {
    let mut keep = vec![false; m.catalog.types.len()];
    let pools = m.node_pools.len();
    m.node_pools.extend(edits.iter().cloned());
    for pool in 0..m.node_pools.len() {
        if let Some(t) = scheduling::claim::build_template(pool, m) {
            for &i in &t.its {
                keep[i as usize] = true;
            }
        }
    }
    m.node_pools.truncate(pools);
    for n in &m.nodes {
        if let Some(i) = n.instance_type.as_deref().and_then(|t| m.catalog.find(t)) {
            keep[i] = true;
        }
    }
    for t in also {
        if let Some(i) = m.catalog.find(t) {
            keep[i] = true;
        }
    }
    let mut i = 0;
    m.catalog.types.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

pub fn run(
    p: Prepared,
    trace: &Trace,
    s: SimSettings,
    #[cfg(feature = "cluster-autoscaler")] ca: Option<super::ca_loop::CaInput>,
) -> Result<Simulation, Vec<InputError>> {
    let mut p = p;
    // A Cluster Autoscaler run keeps the types of its node groups (their first, which it
    // launches) through the pruning below.
    #[cfg(feature = "cluster-autoscaler")]
    let ca = match ca {
        Some(c) => Some(super::ca_loop::prepare(&mut p, c)?),
        None => None,
    };
    #[cfg(feature = "cluster-autoscaler")]
    let group_types: Vec<String> = ca.iter().flat_map(|c| c.stepper.groups().iter().map(|g| g.instance_types[0].clone())).collect();
    #[cfg(not(feature = "cluster-autoscaler"))]
    let group_types: Vec<String> = Vec::new();
    let last = p.events.iter().map(|e| e.at).max().unwrap_or(0);
    let horizon = s.end_seconds.or(trace.end).unwrap_or(last.saturating_add(86_400));
    // The series hold one sample per interval: refuse horizons that would not fit in memory.
    if horizon / s.metrics_interval_seconds > MAX_SAMPLES {
        return Err(vec![InputError::new(
            "simulation-too-long",
            format!("{horizon}s sampled every {}s is more than {MAX_SAMPLES} samples", s.metrics_interval_seconds),
        )
        .path("simulation.metricsIntervalSeconds")
        .help("a larger metricsIntervalSeconds or a shorter end")]);
    }
    let edits: Vec<crate::model::NodePool> = p
        .events
        .iter()
        .filter_map(|e| match &e.action {
            SimAction::EditNodePool { replacement, .. } => Some((**replacement).clone()),
            _ => None,
        })
        .collect();
    // The reservations' on-demand prices (an ODCR's committed cost), before pruning drops
    // the types no NodePool launches.
    let res_prices: Vec<Option<f64>> = p
        .model
        .reservations
        .iter()
        .map(|r| p.model.catalog.find(&r.instance_type).map(|i| p.model.catalog.types[i].on_demand_price).filter(|x| x.is_finite()))
        .collect();
    super::reservations::check_prices(&p.model, &s)?;
    super::reservations::offer_all(&mut p.model);
    prune_catalog(&mut p.model, &edits, &group_types);
    let origin = trace.start.unwrap_or(DEFAULT_START);
    let last_event = p.events.iter().map(|e| e.at).max().unwrap_or(0);
    let end = s.end_seconds.or(trace.end).unwrap_or(last_event.saturating_add(86_400));
    let resources = &p.model.resources;
    let gpu_resources = ["nvidia.com/gpu", "amd.com/gpu"].iter().filter_map(|r| resources.get(r)).collect();
    let accel_resources = ["nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "habana.ai/gaudi"]
        .iter()
        .filter_map(|r| resources.get(r))
        .collect();
    let pools = p.model.node_pools.len();
    let mut sim = Sim {
        metrics: super::metrics::Recorder::new(&p.model, s.metrics_interval_seconds),
        m: p.model,
        s,
        templates: p.templates,
        trace_left: p.events.len(),
        trace_events: p.events,
        origin,
        show_time: trace.start.is_some(),
        now: 0,
        end,
        seq: 0,
        queue: BinaryHeap::new(),
        pods: Vec::new(),
        model_pod_owner: Vec::new(),
        pending: BTreeSet::new(),
        nominated: BTreeSet::new(),
        instances: Vec::new(),
        instance_names: HashMap::new(),
        used_names: HashMap::new(),
        nodes: Vec::new(),
        model_node_owner: Vec::new(),
        node_by_name: HashMap::new(),
        pool_counters: vec![0; pools],
        batch_open: None,
        batch_gen: 0,
        unplaced: false,
        requeue_armed: false,
        changes: 0,
        batch_saw: 0,
        passed: false,
        pass_at: None,
        pass_token: 0,
        command: None,
        command_gen: 0,
        timeline: Vec::new(),
        warnings: p.warnings,
        live_trace_pods: 0,
        live_sim_nodes: 0,
        templates_cache: vec![None; pools],
        gpu_resources,
        accel_resources,
        baseline_memo: scheduling::BaselineMemo::default(),
        pod_attempts: 0,
        virtual_pods: p.virtual_pods,
        res: Vec::new(),
        watched: p.watched,
        demand: trace.demand.clone(),
        keda: p.keda,
        #[cfg(feature = "cluster-autoscaler")]
        ca,
    };
    sim.adopt_initial_state();
    #[cfg(feature = "cluster-autoscaler")]
    if sim.ca.is_some() {
        sim.ca_start();
    }
    sim.reservations_start(res_prices);
    // The buffer controller reconciles each buffer when it appears and wakes the provisioner.
    sim.buffers_changed();
    for i in 0..sim.trace_events.len() {
        let at = sim.trace_events[i].at;
        sim.push(at, Ev::Trace(i));
    }
    sim.request_pass(0);
    if !sim.watched.is_empty() {
        sim.push(0, Ev::HpaSync);
    }
    for k in 0..sim.keda.len() {
        sim.push(0, Ev::KedaPoll(k));
    }
    let mut processed: u64 = 0;
    let mut finished_at = None;
    while let Some(Reverse((t, _, ev))) = sim.queue.pop() {
        // Cancelled: the caller drops this answer (crate::interrupt).
        if t > sim.end || crate::interrupt::poll() {
            break;
        }
        let view = super::metrics::View { nodes: &sim.nodes, pending: sim.pending.len(), m: &sim.m, res: &sim.res };
        sim.metrics.catch_up(t, &view);
        sim.now = t;
        sim.handle(ev);
        processed += 1;
        if sim.pod_attempts > sim.s.max_pod_attempts {
            return Err(vec![InputError::new(
                "simulation-too-long",
                format!(
                    "the simulation re-scheduled more than {} pending pods in its provisioning passes before reaching its end (pods waiting behind a limit are tried again in every pass)",
                    sim.s.max_pod_attempts
                ),
            )
            .path("simulation.maxPodAttempts")
            .help("a shorter trace or end, a NodePool limit that lets the queue drain, or a larger maxPodAttempts")]);
        }
        if processed > sim.s.max_events {
            return Err(vec![InputError::new(
                "simulation-too-long",
                format!("the simulation needed more than {} events before reaching its end", sim.s.max_events),
            )
            .path("simulation.maxEvents")
            .help("a shorter trace or end, or a larger maxEvents")]);
        }
        // KEDA's scale loop may still create pods from the demand: it runs to the end.
        if sim.trace_left == 0 && sim.live_trace_pods == 0 && sim.live_sim_nodes == 0 && sim.pending.is_empty() && sim.keda.is_empty() {
            finished_at = Some(sim.now);
            break;
        }
    }
    // Cancelled (crate::interrupt): the caller drops the answer; skip summarising it.
    if crate::interrupt::poll() {
        return Err(vec![InputError::new("interrupted", "the simulation was interrupted before its end").path("simulation")]);
    }
    let duration = finished_at.unwrap_or(sim.end).min(sim.end);
    sim.now = duration;
    let view = super::metrics::View { nodes: &sim.nodes, pending: sim.pending.len(), m: &sim.m, res: &sim.res };
    sim.metrics.finish(duration, &view);
    Ok(super::summary::build(sim, duration))
}

impl Sim {
    pub fn push(&mut self, at: i64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((at, self.seq, ev)));
    }

    pub fn log(&mut self, event: TimelineEvent, object: String, node: Option<String>, reason: Option<String>, detail: Option<String>) {
        let time = self.show_time.then(|| super::render::rfc3339(self.origin + self.now));
        self.timeline.push(TimelineEntry { time_seconds: self.now, time, event, object, node, reason, detail });
        if event != TimelineEvent::PodUnschedulable {
            self.changes += 1;
            // The cluster changed while pods wait unplaced: their next requeue runs a pass.
            if self.unplaced && !self.requeue_armed {
                self.arm_requeue();
            }
        }
    }

    pub fn abs_now(&self) -> i64 {
        self.origin + self.now
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Trace(i) => {
                self.trace_left -= 1;
                let action = self.trace_events[i].action.clone();
                self.trace_action(action);
            }
            Ev::BatchClose(g) => {
                if g == self.batch_gen && self.batch_open.is_some() {
                    self.batch_open = None;
                    self.run_batch();
                }
            }
            Ev::Registered(n) => self.node_registered(n),
            Ev::Initialized(n) => self.node_initialized(n),
            Ev::Finish(p, g) => {
                if self.pods[p].gen == g && self.pods[p].state == PodState::Running {
                    self.finish_pod(p);
                }
            }
            Ev::Disrupt(tok) => {
                if tok == self.pass_token {
                    self.pass_at = None;
                    self.disruption_pass();
                }
            }
            Ev::Interrupt(n) => self.interrupt(n),
            Ev::Terminate(n, r) => self.terminate(n, REASONS[r]),
            Ev::DeleteInstance(i) => self.delete_instance(i),
            Ev::Reservation(r, edge) => self.reservation_edge(r, edge),
            Ev::HpaSync => self.hpa_sync(),
            Ev::KedaPoll(k) => self.keda_poll(k),
            Ev::Validate(gen) => {
                if gen == self.command_gen {
                    self.validate_command();
                }
            }
            Ev::Requeue => self.requeue(),
        }
    }

    // ---- trace actions -------------------------------------------------------------------

    fn trace_action(&mut self, a: SimAction) {
        match a {
            SimAction::Submit { tpl, name, replicas, run_time, checkpoint } => {
                self.submit(tpl, name, replicas, run_time, checkpoint);
            }
            SimAction::Scale { instance, replicas } => match self.instance_names.get(&instance).copied() {
                Some(i) if !self.templates[self.instances[i].tpl].members.is_empty() => self.warn(
                    "not-scalable",
                    format!(
                        "scale at {}s: {instance:?} runs the pods its manifest expands to; change the manifest's replica counts",
                        self.now
                    ),
                ),
                Some(i) if !self.instances[i].deleted && self.templates[self.instances[i].tpl].kind == Kind::Service => {
                    self.scale(i, replicas)
                }
                Some(_) => {
                    self.warn("not-scalable", format!("scale at {}s: {instance:?} is not a running Deployment-like workload", self.now))
                }
                None => self.warn("unknown-workload", format!("scale at {}s: no workload instance named {instance:?}", self.now)),
            },
            SimAction::Delete { instance } => match self.instance_names.get(&instance).copied() {
                Some(i) => self.delete_instance(i),
                None => self.warn("unknown-workload", format!("delete at {}s: no workload instance named {instance:?}", self.now)),
            },
            SimAction::Interrupt { node } => match self.node_by_name.get(&node).copied() {
                Some(n) => self.interrupt(n),
                None => self.warn("unknown-node", format!("interrupt at {}s: no live NodeClaim named {node:?}", self.now)),
            },
            SimAction::Condition(c) => self.set_condition(c),
            SimAction::ReservationInterrupt(n) => self.reservation_notice(&n),
            SimAction::EditNodePool { pool, replacement } => self.edit_node_pool(pool, *replacement),
            SimAction::Row { tpl, replicas, run_time } => {
                if self.templates[tpl].kind == Kind::Service {
                    let base = self.templates[tpl].name.clone();
                    let gang = !self.templates[tpl].members.is_empty();
                    match self.instance_names.get(&base).copied().filter(|&i| !self.instances[i].deleted) {
                        Some(i) if replicas == 0 => self.delete_instance(i),
                        // A running gang already has all its pods (prepare checked the count).
                        Some(_) if gang => {}
                        Some(i) => self.scale(i, replicas),
                        None if replicas > 0 => self.submit(tpl, None, replicas, run_time, None),
                        None => {}
                    }
                } else if replicas > 0 {
                    self.submit(tpl, None, replicas, run_time, None);
                }
            }
        }
    }

    pub(super) fn warn(&mut self, code: &str, message: String) {
        self.warnings.push(Warning { code: code.into(), message, object: None });
    }

    pub(super) fn submit(&mut self, tpl: usize, name: Option<String>, replicas: i64, run_time: Option<RunTime>, checkpoint: Option<i64>) {
        let base = name.unwrap_or_else(|| self.templates[tpl].name.clone());
        let uses = self.used_names.entry(base.clone()).or_insert(0);
        *uses += 1;
        let name = if *uses == 1 { base } else { format!("{base}-{uses}") };
        let id = self.instances.len();
        let rng = SplitMix64::derive(self.s.seed, STREAM_RUN, id as u64);
        self.instances.push(Instance {
            name: name.clone(),
            tpl,
            pods: Vec::new(),
            next_index: 0,
            run_time,
            checkpoint,
            rng,
            deleted: false,
            job: None,
        });
        self.instance_names.insert(name, id);
        let kind = self.templates[tpl].kind;
        let mut n = if kind == Kind::Pod { 1 } else { replicas.max(0) };
        if let Some(job) = self.templates[tpl].job.as_ref().map(|j| super::state::JobProgress::new(j, replicas)) {
            n = job.wanted(0);
            self.instances[id].job = Some(job);
        }
        for _ in 0..n {
            self.new_pod(id);
        }
        if kind == Kind::Service {
            // A run time on a Deployment-like workload deletes it after that long.
            if let Some(rt) = self.instances[id].run_time.clone() {
                let d = draw(&mut self.instances[id].rng, &rt);
                let at = self.now.saturating_add(d);
                self.push(at, Ev::DeleteInstance(id));
            }
        }
    }

    pub fn scale(&mut self, i: usize, replicas: i64) {
        let live: Vec<usize> = self.instances[i].pods.iter().copied().filter(|&p| self.is_live(p)).collect();
        let want = replicas.max(0) as usize;
        if want > live.len() {
            for _ in live.len()..want {
                self.new_pod(i);
            }
        } else {
            // The ReplicaSet controller removes unscheduled pods first, then the newest.
            let mut order = live.clone();
            order.sort_by_key(|&p| (self.pods[p].state != PodState::Pending, Reverse(p)));
            for &p in order.iter().take(live.len() - want) {
                self.delete_pod(p);
            }
        }
    }

    fn delete_instance(&mut self, i: usize) {
        if self.instances[i].deleted {
            return;
        }
        self.instances[i].deleted = true;
        for p in self.instances[i].pods.clone() {
            if self.is_live(p) {
                self.delete_pod(p);
            }
        }
    }

    pub fn is_live(&self, p: usize) -> bool {
        !matches!(self.pods[p].state, PodState::Finished | PodState::Deleted)
    }

    pub fn new_pod(&mut self, inst: usize) {
        let tpl = self.instances[inst].tpl;
        let t = &self.templates[tpl];
        let k = self.instances[inst].next_index;
        self.instances[inst].next_index += 1;
        let iname = self.instances[inst].name.clone();
        // A gang's k-th pod is its k-th member, renamed from the expansion's name to the instance's.
        let member = (!t.members.is_empty()).then(|| &t.members[k % t.members.len()]);
        let mut pod = member.unwrap_or(&t.pod).clone();
        let suffix = member.and_then(|m| m.name.strip_prefix(t.expanded_as.as_str()));
        pod.name = match (t.kind, suffix) {
            (Kind::Pod, _) => iname.clone(),
            (_, Some(suffix)) => format!("{iname}{suffix}"),
            _ => format!("{iname}-{k}"),
        };
        pod.uid = format!("{}/{}", pod.namespace, pod.name);
        pod.created = self.abs_now();
        pod.workload = Some(format!("{}/{}", t.kind_name, iname));
        pod.node_name = None;
        let run = match (t.kind, self.instances[inst].run_time.clone()) {
            (Kind::Service, _) | (_, None) => None,
            (_, Some(rt)) => Some(draw(&mut self.instances[inst].rng, &rt)),
        };
        let gpus = self.gpu_resources.iter().map(|&r| pod.requests.get(r)).sum::<i64>() / 1000;
        let id = self.pods.len();
        self.pods.push(SPod {
            key: pod.key(),
            workload: format!("{}/{}/{}", t.kind_name, pod.namespace, iname),
            state: PodState::Pending,
            node: None,
            run,
            checkpoint: self.instances[inst].checkpoint,
            progress: 0,
            run_since: 0,
            submitted: self.now,
            first_start: None,
            finished: None,
            pending_since: self.now,
            pending_total: 0,
            running_total: 0,
            lost: 0,
            restarts: 0,
            nodes: Vec::new(),
            gen: 0,
            midx: None,
            unschedulable_reported: false,
            gpus,
            initial: false,
            instance: inst,
        });
        self.instances[inst].pods.push(id);
        self.model_add_pod(id, pod);
        self.live_trace_pods += 1;
        let key = self.pods[id].key.clone();
        self.log(TimelineEvent::PodPending, key, None, None, None);
        self.pending.insert(id);
        self.trigger_batch();
    }

    pub fn model_add_pod(&mut self, id: usize, pod: crate::model::Pod) {
        self.pods[id].midx = Some(self.m.pods.len());
        self.m.pods.push(pod);
        self.model_pod_owner.push(id);
    }

    fn model_remove_pod(&mut self, id: usize) {
        let Some(i) = self.pods[id].midx.take() else { return };
        self.m.pods.swap_remove(i);
        self.model_pod_owner.swap_remove(i);
        if i < self.model_pod_owner.len() {
            let moved = self.model_pod_owner[i];
            self.pods[moved].midx = Some(i);
        }
    }

    pub(super) fn set_pod_node(&mut self, id: usize, node: Option<String>) {
        if let Some(i) = self.pods[id].midx {
            self.m.pods[i].node_name = node;
        }
    }

    /// Open a provisioning batch, or extend the open one (idle window, capped by the max window).
    pub fn trigger_batch(&mut self) {
        let close = match self.batch_open {
            None => {
                self.batch_open = Some(self.now);
                self.now + self.s.batch_idle_seconds
            }
            Some(open) => (self.now + self.s.batch_idle_seconds).min(open + self.s.batch_max_seconds),
        };
        self.batch_gen += 1;
        let g = self.batch_gen;
        self.push(close, Ev::BatchClose(g));
    }

    /// One provisioning pass over every pending pod: the `plan` pass on the current cluster.
    /// With CapacityBuffers, kube-scheduler first binds what fits on ready nodes, then the pass
    /// also places the buffers' virtual pods (buffers.rs).
    fn run_batch(&mut self) {
        // A Cluster Autoscaler run: kube-scheduler binds what fits; its next scan loop scales
        // up for the rest (ca_loop.rs).
        #[cfg(feature = "cluster-autoscaler")]
        if self.ca.is_some() {
            self.ca_bind();
            if !self.pending.is_empty() {
                self.mark_dirty();
            }
            return;
        }
        let buffers = !self.virtual_pods.is_empty();
        if self.pending.is_empty() && self.nominated.is_empty() && !buffers {
            self.unplaced = false;
            return;
        }
        // Karpenter's pass packs the pods nominated to a NodeClaim in flight again (they are
        // unbound) and nominates their nodes anew; the simulator keeps them where they are
        // (requeue.rs, and docs/karpenter-fidelity.md section 59 for why).
        self.renew_nominations();
        if !buffers && (self.pending.is_empty() || self.changes == self.batch_saw && self.passed) {
            // Nothing else to place, or nothing changed since the last pass began (this pass
            // would answer as that one did): the renewal is all it does.
            self.unplaced &= !self.pending.is_empty();
            if !self.requeue_armed && !self.nominated.is_empty() {
                self.arm_requeue();
            }
            return;
        }
        self.batch_saw = self.changes;
        self.passed = true;
        if buffers && !self.pending.is_empty() {
            self.kube_scheduler_binds();
        }
        let first_virtual = buffers.then(|| self.add_virtual_pods());
        let mut pending: Vec<usize> = self.pending.iter().filter_map(|&p| self.pods[p].midx).collect();
        pending.extend(first_virtual.map_or(0..0, |f| f..self.m.pods.len()));
        self.pod_attempts += pending.len() as u64;
        // The same pass as `solve_pods`, from a baseline that remembers what earlier passes built.
        let base = scheduling::Baseline::remembering(&self.m, &mut self.baseline_memo);
        let sol = scheduling::solve_on(&self.m, &base, Some(&pending), &[], &[]);
        let (finals, truncated) = scheduling::launch::finalize_claims(&self.m, &sol);
        let mut placed: Vec<(usize, Placement)> = sol.placements.iter().map(|(&p, &pl)| (p, pl)).collect();
        placed.sort_by_key(|(p, _)| *p);
        // Nominations to existing and in-flight nodes; virtual pods are never nominated, only
        // remembered on the nodes they went to.
        let mut moves: Vec<(usize, usize)> = Vec::new();
        let mut hosts = std::collections::BTreeSet::new();
        for (mp, pl) in &placed {
            if let Placement::Existing(i) = pl {
                let node = self.model_node_owner[sol.existing[*i].node];
                match self.model_pod_owner[*mp] {
                    VIRTUAL => {
                        hosts.insert(self.nodes[node].name.clone());
                    }
                    p => moves.push((p, node)),
                }
            }
        }
        // New NodeClaims, in the order the pass created them (one holding only virtual pods
        // is launched too: the buffer's spare capacity).
        let mut launches: Vec<(usize, Vec<usize>)> = Vec::new();
        for f in &finals {
            let Some(l) = &f.launch else { continue };
            let pc = &sol.claims[f.claim];
            let t = &sol.templates[pc.template];
            let alloc = t.alloc(l.it, &self.m).clone();
            let mut pods: Vec<usize> = pc.pods.iter().map(|&mp| self.model_pod_owner[mp]).filter(|&p| p != VIRTUAL).collect();
            pods.sort_unstable();
            let n = self.launch_node(t.pool, l.it as usize, l.capacity_type, l.zone, Some(&pc.requirements), alloc, None, l.reservation);
            launches.push((n, pods));
        }
        let mut failed: Vec<(usize, ReasonCode)> = Vec::new();
        for (mp, f) in &sol.failures {
            let code = crate::diagnostics::unschedulable(&self.m, &sol, *mp, f).code;
            failed.push((self.model_pod_owner[*mp], code));
        }
        for (mp, _) in truncated {
            failed.push((self.model_pod_owner[mp], ReasonCode::MinValuesNotMet));
        }
        for f in finals.iter().filter(|f| f.launch.is_none()) {
            for &mp in &sol.claims[f.claim].pods {
                failed.push((self.model_pod_owner[mp], ReasonCode::NoInstanceTypeFits));
            }
        }
        drop(sol);
        // Virtual pods that failed stay virtual: nothing to report on a pod that does not exist.
        failed.retain(|&(p, _)| p != VIRTUAL);
        if let Some(first) = first_virtual {
            self.remove_virtual_pods(first);
            self.m.buffer_hosts = hosts;
        }
        // Only nodes that existed before this pass are held for the window; its new
        // NodeClaims, below, are not (scheduler.go, Results.Record).
        for (p, n) in moves {
            self.nominate(p, n);
            self.hold_nominated(n);
        }
        for (n, pods) in launches {
            for p in pods {
                self.nominate(p, n);
            }
        }
        // A pod deferred because another NodeClaim of this pass holds its reservation (a
        // ReservedOfferingError) is one more unplaced pod: the pod controller's requeue brings
        // it back, and the pass that launched that NodeClaim is the change that lets the
        // requeue run (requeue.rs; docs/karpenter-fidelity.md, section 59).
        self.unplaced = failed.iter().any(|&(p, _)| self.pods[p].state == PodState::Pending);
        // By pod, then by wire name: the order the timeline has always had.
        failed.sort_by_key(|&(p, code)| (p, code.as_str()));
        for (p, code) in failed {
            if !self.pods[p].unschedulable_reported && self.pods[p].state == PodState::Pending {
                self.pods[p].unschedulable_reported = true;
                let key = self.pods[p].key.clone();
                self.log(TimelineEvent::PodUnschedulable, key, None, Some(code.as_str().into()), None);
            }
        }
        if !self.requeue_armed && (self.unplaced && self.changes != self.batch_saw || !self.nominated.is_empty()) {
            self.arm_requeue();
        }
    }

    pub fn start(&mut self, p: usize) {
        let now = self.now;
        let pod = &mut self.pods[p];
        pod.state = PodState::Running;
        pod.run_since = now;
        pod.pending_total += now - pod.pending_since;
        pod.first_start.get_or_insert(now);
        let finish = pod.run.map(|r| now.saturating_add((r - pod.progress).max(0)));
        let gen = pod.gen;
        let node = pod.node.map(|n| self.nodes[n].name.clone());
        let key = pod.key.clone();
        self.log(TimelineEvent::PodStarted, key, node, None, None);
        if let Some(at) = finish {
            self.push(at, Ev::Finish(p, gen));
        }
    }

    fn stop_running(&mut self, p: usize) {
        let now = self.now;
        let pod = &mut self.pods[p];
        if pod.state == PodState::Running {
            let elapsed = now - pod.run_since;
            pod.running_total += elapsed;
            if pod.run.is_some() {
                pod.progress += elapsed;
            }
        }
        pod.gen += 1;
    }

    fn leave_node(&mut self, p: usize) {
        self.nominated.remove(&p);
        if let Some(n) = self.pods[p].node.take() {
            self.node_loses_pod(n, p);
        }
        self.set_pod_node(p, None);
    }

    fn finish_pod(&mut self, p: usize) {
        self.stop_running(p);
        let pod = &mut self.pods[p];
        pod.progress = pod.run.unwrap_or(pod.progress);
        pod.state = PodState::Finished;
        pod.finished = Some(self.now);
        let node = pod.node.map(|n| self.nodes[n].name.clone());
        let key = pod.key.clone();
        self.log(TimelineEvent::PodFinished, key, node, None, None);
        self.leave_node(p);
        self.model_remove_pod(p);
        self.live_trace_pods -= usize::from(!self.pods[p].initial);
        self.job_pod_succeeded(p);
        self.capacity_freed();
    }

    pub fn delete_pod(&mut self, p: usize) {
        self.stop_running(p);
        self.pods[p].state = PodState::Deleted;
        self.pending.remove(&p);
        let node = self.pods[p].node.map(|n| self.nodes[n].name.clone());
        let key = self.pods[p].key.clone();
        self.log(TimelineEvent::PodDeleted, key, node, None, None);
        self.leave_node(p);
        self.model_remove_pod(p);
        self.live_trace_pods -= usize::from(!self.pods[p].initial);
        self.capacity_freed();
    }

    /// Evict a pod from its node (disruption, interruption, expiration): the controller that
    /// owns it re-creates it at once, pending again; work since the last checkpoint is lost.
    pub fn evict(&mut self, p: usize, reason: &str) {
        // A pod its Job deleted earlier in the same drain (the Job failed) is gone already.
        if !self.is_live(p) {
            return;
        }
        let was_running = self.pods[p].state == PodState::Running;
        self.stop_running(p);
        let pod = &mut self.pods[p];
        if was_running && pod.run.is_some() {
            let kept = pod.checkpoint.map_or(0, |c| pod.progress / c * c);
            pod.lost += pod.progress - kept;
            pod.progress = kept;
        }
        let node = pod.node.map(|n| self.nodes[n].name.clone());
        let key = pod.key.clone();
        self.log(TimelineEvent::PodEvicted, key.clone(), node, Some(reason.to_string()), None);
        self.leave_node(p);
        let pod = &mut self.pods[p];
        pod.state = PodState::Pending;
        pod.pending_since = self.now;
        pod.restarts += 1;
        pod.unschedulable_reported = false;
        self.log(TimelineEvent::PodRestarted, key, None, None, None);
        self.pending.insert(p);
        self.trigger_batch();
        self.job_pod_failed(p, reason);
    }

    /// Room appeared (a pod left, a node went away): pending pods get another batch, the
    /// disruption controller another look.
    pub fn capacity_freed(&mut self) {
        // With buffers, a pass also tells where their virtual pods fit now (buffers.rs).
        if !self.pending.is_empty() || !self.virtual_pods.is_empty() {
            self.trigger_batch();
        }
        self.mark_dirty();
    }

    pub fn mark_dirty(&mut self) {
        let p = self.s.disruption_poll_seconds;
        let tick = (self.now / p + 1) * p;
        self.request_pass(tick);
    }

    pub fn request_pass(&mut self, at: i64) {
        if self.pass_at.is_none_or(|p| at < p) {
            self.pass_at = Some(at);
            self.pass_token += 1;
            let tok = self.pass_token;
            self.push(at, Ev::Disrupt(tok));
        }
    }

    pub fn node_count_changed(&mut self, delta: isize) {
        self.live_sim_nodes = (self.live_sim_nodes as isize + delta) as usize;
    }
}

/// One run-time draw, in whole seconds, at least 1.
pub fn draw(rng: &mut SplitMix64, rt: &RunTime) -> i64 {
    let v = match *rt {
        RunTime::Fixed(d) => return d.max(1),
        RunTime::Uniform(lo, hi) => return rng.range(lo, hi).max(1),
        RunTime::Exponential(mean) => rng.exponential(mean),
        RunTime::Normal(mean, sd) => rng.normal(mean, sd),
    };
    (v.round() as i64).max(1)
}
