//! `consolidate --until` (docs/consolidate-until.md): the commands Karpenter's disruption
//! controller carries out from `now` to `until`, pass after pass.
//!
//! One `consolidate` answer is one pass of the controller (disruption/controller.go: the first
//! method with a command ends the pass). The next pass runs on the cluster that command leaves:
//! its nodes drained and gone, its replacement launched and initialized, budgets counting the
//! nodes still being disrupted, and consolidateAfter measured from the pods' moves. That is
//! exactly what the simulator replays, so the sequence is a simulation of the cluster as given
//! with no trace events: its pending pods are submitted at `now` (they take part in every pass,
//! as in Karpenter), and the simulator's disruption passes (the same `disruption::decide` the
//! single answer uses) record each command. Spot interruptions are off unless the request's
//! simulation settings turn them on: the sequence is about what Karpenter decides.

use super::trace::{Action, Source, Trace, TraceEvent, WorkloadDef};
use super::{SimSettings, Simulation};
use crate::api::{ConsolidationSequence, ConsolidationStep, Warning};
use crate::error::InputError;
use crate::load::Sources;
use crate::model::Model;
use crate::reason::DisruptionReason;
use crate::vocab::TimelineEvent;

/// The sequence from `now` to `until` (Unix seconds) on the loaded cluster.
pub fn consolidation_sequence(
    req: &Sources,
    model: &Model,
    warnings: &[Warning],
    now: i64,
    until: i64,
    until_text: &str,
    settings: Option<&SimSettings>,
) -> Result<ConsolidationSequence, Vec<InputError>> {
    if until <= now {
        return Err(vec![InputError::new("invalid-value", format!("until ({until_text}) is not after now"))
            .path("until")
            .help("an RFC 3339 time after --now, e.g. now + 1 day")]);
    }
    let mut s = settings.cloned().unwrap_or(SimSettings { spot_interruption_rate_per_hour: 0.0, ..Default::default() });
    s.end_seconds = Some(until - now);
    let trace = Trace { start: Some(now), end: Some(until - now), events: pending_submits(model), demand: Vec::new() };
    let sim = super::run_parsed(req, Some((model, warnings)), &trace, None, &s)?;
    let mut seq = steps(&sim, now, until_text);
    // The input's own warnings are the answer's already.
    seq.warnings.retain(|w| !warnings.contains(w));
    Ok(seq)
}

/// One submit at 0 s per pending workload (or bare pod) of the input.
fn pending_submits(model: &Model) -> Vec<TraceEvent> {
    let mut seen = std::collections::BTreeSet::new();
    let mut events = Vec::new();
    for p in model.pods.iter().filter(|p| p.node_name.is_none() && !p.terminal && !p.owned_by_daemonset) {
        let (kind, name) = match p.workload.as_deref().and_then(|w| w.split_once('/')) {
            Some((k, n)) => (k.to_string(), n.to_string()),
            None => ("Pod".to_string(), p.name.clone()),
        };
        if !seen.insert((kind.clone(), p.namespace.clone(), name.clone())) {
            continue;
        }
        let path = format!("pending[{}]", events.len());
        let def = WorkloadDef {
            source: Source::Ref { kind, namespace: Some(p.namespace.clone()), name },
            replicas: None,
            run_time: None,
            checkpoint: None,
            path: path.clone(),
        };
        events.push(TraceEvent { at: 0, action: Action::Submit { def, name: None }, path, line: None });
    }
    events
}

/// The simulation's disruption commands as steps (consecutive `nodeclaim-disrupted` entries of
/// one instant and command form one step; a replacement is the launch logged right after them).
fn steps(sim: &Simulation, now: i64, until_text: &str) -> ConsolidationSequence {
    let time = |t: i64| super::render::rfc3339(now + t);
    let terminated = |name: &str| sim.nodes.iter().find(|n| n.name == name).and_then(|n| n.terminated_seconds);
    let mut out: Vec<ConsolidationStep> = Vec::new();
    let mut i = 0;
    let tl = &sim.timeline;
    while i < tl.len() {
        let e = &tl[i];
        if e.event != TimelineEvent::NodeclaimDisrupted {
            i += 1;
            continue;
        }
        let command = e.detail.clone().unwrap_or_default();
        let mut nodes = Vec::new();
        let mut j = i;
        while j < tl.len()
            && tl[j].event == TimelineEvent::NodeclaimDisrupted
            && tl[j].time_seconds == e.time_seconds
            && tl[j].detail == e.detail
        {
            nodes.push(tl[j].object.clone());
            j += 1;
        }
        let replacement = tl.get(j).filter(|r| r.event == TimelineEvent::NodeclaimLaunched && r.time_seconds == e.time_seconds).map(|r| {
            let n = sim.nodes.iter().find(|n| n.name == r.object);
            match n {
                Some(n) => {
                    format!("{} ({}, {})", n.name, n.instance_type.as_deref().unwrap_or("?"), n.capacity_type.as_deref().unwrap_or("?"))
                }
                None => r.object.clone(),
            }
        });
        let gone: Option<Vec<i64>> = nodes.iter().map(|n| terminated(n)).collect();
        // A validated command was decided by the pass 15 s earlier (its `disruption-decided`).
        let earlier = e.time_seconds - crate::disruption::COMMAND_VALIDATION_DELAY_SECONDS;
        let validated = tl[..i]
            .iter()
            .rev()
            .take_while(|d| d.time_seconds >= earlier)
            .any(|d| d.event == TimelineEvent::DisruptionDecided && d.time_seconds == earlier && d.object == nodes[0]);
        let decided = if validated { e.time_seconds - crate::disruption::COMMAND_VALIDATION_DELAY_SECONDS } else { e.time_seconds };
        out.push(ConsolidationStep {
            time: time(e.time_seconds),
            after_seconds: e.time_seconds,
            decided_after_seconds: decided,
            reason: e.reason.as_deref().and_then(DisruptionReason::parse).unwrap_or(DisruptionReason::Underutilized),
            command,
            disrupted_nodes: nodes,
            replacement,
            completed: gone.and_then(|g| g.into_iter().max()).map(time),
        });
        i = j;
    }
    let alive: Vec<&super::NodeOut> = sim.nodes.iter().filter(|n| n.terminated_seconds.is_none()).collect();
    ConsolidationSequence {
        until: until_text.to_string(),
        steps: out,
        nodes_at_until: alive.iter().map(|n| n.name.clone()).collect(),
        price_per_hour_at_until: (alive.iter().map(|n| n.price_per_hour_usd).sum::<f64>() * 1e4).round() / 1e4,
        pending_pods_at_until: sim.summary.pods.pending,
        warnings: sim.warnings.clone(),
    }
}
