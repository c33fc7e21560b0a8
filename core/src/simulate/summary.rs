//! From the final simulation state to the answer: per-node and per-pod tables, the summary and
//! the static cluster sized for the peak.

use super::sim::Sim;
use super::state::PodState;
use super::*;
use crate::price::round_price;
use crate::vocab::PodState as PodEnd;

fn usd(x: f64) -> f64 {
    (x * 1e6).round() / 1e6 + 0.0
}

/// Nearest-rank percentile of sorted values.
pub(super) fn percentile(sorted: &[i64], q: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

pub fn build(mut sim: Sim, duration: i64) -> Simulation {
    let reservations = sim.reservation_uses(duration);
    let mut by_type: IndexMap<String, f64> = IndexMap::new();
    let mut nodes_out = Vec::new();
    let (mut cost, mut empty_cost, mut empty_secs, mut gpu_paid) = (0.0, 0.0, 0i64, 0.0);
    let mut alive = 0;
    for n in &sim.nodes {
        let until = n.terminated.unwrap_or(duration).min(duration);
        let lifetime = (until - n.launched).max(0);
        let mut empty = n.empty_seconds;
        if n.terminated.is_none() {
            alive += 1;
            if let Some(e) = n.empty_since {
                empty += (duration - e).max(0);
            }
        }
        let c = n.cost_until(until);
        if !reservations.is_empty() {
            // A node relabelled on-demand mid-run counts under what it ran as at the end.
            *by_type.entry(n.capacity_type.clone().unwrap_or_else(|| "unknown".into())).or_insert(0.0) += c;
        }
        let ec = n.price * empty as f64 / 3600.0;
        cost += c;
        empty_cost += ec;
        empty_secs += empty;
        gpu_paid += n.gpus as f64 * lifetime as f64 / 3600.0;
        nodes_out.push(NodeOut {
            name: n.name.clone(),
            node_pool: n.pool_name.clone(),
            instance_type: n.instance_type.clone(),
            capacity_type: n.capacity_type.clone(),
            zone: n.zone.clone(),
            price_per_hour_usd: round_price(n.price),
            gpus: n.gpus,
            launched_seconds: n.launched,
            registered_seconds: n.registered,
            initialized_seconds: n.initialized,
            terminated_seconds: n.terminated,
            lifetime_seconds: lifetime,
            cost_usd: usd(c),
            empty_cost_usd: usd(ec),
            termination_reason: n.reason,
            pods: n.pods_ever,
        });
    }
    let mut pods_out = Vec::new();
    let mut counts = PodCounts::default();
    let (mut pending, mut lost, mut gpu_used) = (Vec::new(), 0i64, 0.0);
    for p in &sim.pods {
        let mut running = p.running_total;
        let mut pending_total = p.pending_total;
        match p.state {
            PodState::Running => running += duration - p.run_since,
            PodState::Pending | PodState::Nominated | PodState::Bound => pending_total += duration - p.pending_since,
            _ => {}
        }
        gpu_used += p.gpus as f64 * running as f64 / 3600.0;
        if p.initial {
            continue;
        }
        counts.submitted += 1;
        let state = match p.state {
            PodState::Finished => {
                counts.finished += 1;
                PodEnd::Finished
            }
            PodState::Deleted => {
                counts.deleted += 1;
                PodEnd::Deleted
            }
            PodState::Running => {
                counts.running += 1;
                PodEnd::Running
            }
            _ => {
                counts.pending += 1;
                PodEnd::Pending
            }
        };
        if p.first_start.is_some() {
            pending.push(pending_total);
        }
        lost += p.lost;
        pods_out.push(PodOut {
            name: p.key.clone(),
            workload: p.workload.clone(),
            submitted_seconds: p.submitted,
            started_seconds: p.first_start,
            finished_seconds: p.finished,
            state,
            pending_seconds: pending_total,
            run_time_seconds: p.run,
            running_seconds: running,
            work_lost_seconds: p.lost,
            restarts: p.restarts,
            nodes: p.nodes.iter().map(|&n| sim.nodes[n].name.clone()).collect(),
        });
    }
    pending.sort_unstable();
    let mut static_cluster = Vec::new();
    let mut static_rate = 0.0;
    for (pool, peak) in &sim.metrics.peaks {
        for (it, (count, price)) in &peak.peak {
            static_cluster.push(StaticNodes {
                node_pool: pool.clone(),
                instance_type: it.clone(),
                capacity_type: "on-demand".into(),
                count: *count,
                price_per_hour_usd: round_price(*price),
            });
            static_rate += *count as f64 * price;
        }
    }
    let static_cost = static_rate * duration as f64 / 3600.0;
    let savings = static_cost - cost;
    let mut by_pool = IndexMap::new();
    for (k, v) in &sim.metrics.launches {
        by_pool.insert(k.clone(), *v);
    }
    let mut by_reason = IndexMap::new();
    for (i, r) in super::state::REASONS.iter().enumerate() {
        let count = sim.metrics.disruptions.get(r.as_str()).copied().unwrap_or(0);
        if i < super::state::ALWAYS_LISTED || count > 0 {
            by_reason.insert(r.to_string(), count);
        }
    }
    let summary = Summary {
        duration_seconds: duration,
        cost_usd: usd(cost),
        static_cost_usd: usd(static_cost),
        savings_usd: usd(savings),
        savings_percent: if static_cost > 0.0 { ((savings / static_cost) * 1e4).round() / 100.0 + 0.0 } else { 0.0 },
        static_cluster,
        gpu_hours_paid: usd(gpu_paid),
        gpu_hours_used: usd(gpu_used.min(gpu_paid)),
        // Pods of the input bound to a node that does not report their GPUs (the kubelet would
        // refuse them; an input may still say so) cannot use more GPU-hours than are paid for.
        gpu_utilization: if gpu_paid > 0.0 { ((gpu_used.min(gpu_paid) / gpu_paid) * 1e4).round() / 1e4 } else { 0.0 },
        empty_node_cost_usd: usd(empty_cost),
        empty_node_seconds: empty_secs,
        pending_seconds: Percentiles {
            p50: percentile(&pending, 0.5),
            p95: percentile(&pending, 0.95),
            max: pending.last().copied().unwrap_or(0),
        },
        work_lost_seconds: lost,
        pods: counts,
        launches: Launches { total: by_pool.values().sum(), by_node_pool: by_pool },
        disruptions: Disruptions { total: by_reason.values().sum(), by_reason },
        nodes_alive_at_end: alive,
        cost_by_capacity_type: IndexMap::new(),
        reserved_committed_cost_usd: None,
        total_cost_with_reservations_usd: None,
    };
    let mut summary = summary;
    if !reservations.is_empty() {
        by_type.sort_keys();
        summary.cost_by_capacity_type = by_type.into_iter().map(|(k, v)| (k, usd(v))).collect();
        let committed: f64 = reservations.iter().filter_map(|r| r.committed_cost_usd).sum();
        summary.reserved_committed_cost_usd = Some(usd(committed));
        summary.total_cost_with_reservations_usd = Some(usd(cost + committed));
        let unknown: Vec<&str> = reservations.iter().filter(|r| r.committed_cost_usd.is_none()).map(|r| r.id.as_str()).collect();
        if !unknown.is_empty() {
            sim.warnings.push(crate::api::Warning {
                code: "reservation-price-unknown".into(),
                message: format!(
                    "the committed cost of {} is not counted: a capacity block is prepaid and its price is not in the describe-capacity-reservations output (give it as simulation.capacityBlockPrices, USD per instance-hour)",
                    unknown.join(", ")
                ),
                object: None,
            });
        }
    }
    let mut series = sim.metrics.series(&sim.m);
    let autoscaling = sim.autoscale_report(&mut series, duration);
    Simulation {
        start: sim.show_time.then(|| super::render::rfc3339(sim.origin)),
        seed: sim.s.seed,
        settings: sim.s.clone(),
        summary,
        nodes: nodes_out,
        pods: pods_out,
        timeline: sim.timeline,
        series,
        warnings: sim.warnings,
        skipped: sim.m.skipped.clone(),
        reservations,
        autoscaling,
        origin: sim.origin,
    }
}
