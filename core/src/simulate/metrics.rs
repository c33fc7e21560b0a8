//! Time series under Karpenter's metric names, sampled every `metricsIntervalSeconds`, and the
//! peak node mix per NodePool for the static-cluster comparison.

use super::state::{NState, ResTrack, SNode};
use super::{Metric, Series};
use crate::model::{LimitKey, Model};
use crate::resources::Resources;
use indexmap::IndexMap;
use std::collections::BTreeMap;

pub struct View<'a> {
    pub nodes: &'a [SNode],
    pub pending: usize,
    pub m: &'a Model,
    pub res: &'a [ResTrack],
}

struct Sample {
    usage: Vec<Resources>,
    alloc: Vec<Resources>,
    nodes: Vec<i64>,
    launched: Vec<u64>,
    terminated: BTreeMap<(usize, String), u64>,
    pending: usize,
    cost: f64,
    rate: f64,
    /// Per reservation: (instances used, TotalInstanceCount) while active, else (0, 0).
    reserved: Vec<(i64, i64)>,
}

/// Per NodePool (or `(unmanaged)`): the on-demand $/h of live nodes and the mix at its peak.
#[derive(Default, Clone)]
pub struct PeakMix {
    pub live: BTreeMap<String, (usize, f64)>,
    pub rate: f64,
    pub peak_rate: f64,
    pub peak: BTreeMap<String, (usize, f64)>,
}

pub struct Recorder {
    interval: i64,
    next: i64,
    samples: Vec<Sample>,
    times: Vec<i64>,
    launched: Vec<u64>,
    terminated: BTreeMap<(usize, String), u64>,
    pub disruptions: BTreeMap<String, usize>,
    pub launches: BTreeMap<String, usize>,
    pub peaks: BTreeMap<String, PeakMix>,
}

fn pool_key(n: &SNode) -> String {
    n.pool_name.clone().unwrap_or_else(|| "(unmanaged)".into())
}

impl Recorder {
    pub fn new(m: &Model, interval: i64) -> Self {
        Recorder {
            interval,
            next: 0,
            samples: Vec::new(),
            times: Vec::new(),
            launched: vec![0; m.node_pools.len()],
            terminated: BTreeMap::new(),
            disruptions: BTreeMap::new(),
            launches: BTreeMap::new(),
            peaks: BTreeMap::new(),
        }
    }

    pub fn node_launched(&mut self, n: &SNode, initial: bool) {
        if !initial {
            if let Some(p) = n.pool {
                self.launched[p] += 1;
            }
            *self.launches.entry(pool_key(n)).or_insert(0) += 1;
        }
        let peak = self.peaks.entry(pool_key(n)).or_default();
        let e = peak.live.entry(n.instance_type.clone().unwrap_or_else(|| n.name.clone())).or_insert((0, n.on_demand_price));
        e.0 += 1;
        peak.rate += n.on_demand_price;
        if peak.rate > peak.peak_rate + 1e-12 {
            peak.peak_rate = peak.rate;
            peak.peak = peak.live.clone();
        }
    }

    pub fn node_terminated(&mut self, n: &SNode, reason: &str) {
        if let Some(p) = n.pool {
            *self.terminated.entry((p, reason.to_string())).or_insert(0) += 1;
        }
        if let Some(peak) = self.peaks.get_mut(&pool_key(n)) {
            let k = n.instance_type.clone().unwrap_or_else(|| n.name.clone());
            if let Some(e) = peak.live.get_mut(&k) {
                e.0 -= 1;
                if e.0 == 0 {
                    peak.live.remove(&k);
                }
            }
            peak.rate -= n.on_demand_price;
        }
    }

    pub fn disrupted(&mut self, reason: &str) {
        *self.disruptions.entry(reason.to_string()).or_insert(0) += 1;
    }

    /// Record every sample time strictly before `t` (the state after all events up to it).
    pub fn catch_up(&mut self, t: i64, v: &View) {
        while self.next < t {
            let s = self.next;
            self.record(s, v);
        }
    }

    pub fn finish(&mut self, end: i64, v: &View) {
        while self.next <= end {
            let s = self.next;
            self.record(s, v);
        }
    }

    fn record(&mut self, s: i64, v: &View) {
        let pools = v.m.node_pools.len();
        let mut sample = Sample {
            usage: vec![Resources::new(); pools],
            alloc: vec![Resources::new(); pools],
            nodes: vec![0; pools],
            launched: self.launched.clone(),
            terminated: self.terminated.clone(),
            pending: v.pending,
            cost: 0.0,
            rate: 0.0,
            reserved: v
                .res
                .iter()
                .zip(&v.m.reservations)
                .map(|(t, r)| if t.active { ((r.total - r.available).max(0), r.total) } else { (0, 0) })
                .collect(),
        };
        for n in v.nodes {
            sample.cost += n.cost_until(s);
            if n.state == NState::Terminated {
                continue;
            }
            sample.rate += n.price;
            if let Some(p) = n.pool {
                sample.usage[p].add(&n.capacity);
                sample.nodes[p] += 1;
                if n.state == NState::Initialized {
                    sample.alloc[p].add(&n.allocatable);
                }
            }
        }
        self.samples.push(sample);
        self.times.push(s);
        self.next = s + self.interval;
    }

    pub fn series(&self, m: &Model) -> Series {
        let mut order: Vec<usize> = (0..m.node_pools.len()).collect();
        order.sort_by(|&a, &b| m.node_pools[a].name.cmp(&m.node_pools[b].name));
        let r6 = |x: f64| (x * 1e6).round() / 1e6 + 0.0;
        let mut metrics = Vec::new();
        let labels =
            |pairs: &[(&str, &str)]| -> IndexMap<String, String> { pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() };
        for (name, pick) in [("karpenter_nodepool_usage", 0), ("karpenter_nodepool_limit", 1), ("karpenter_nodes_allocatable", 2)] {
            for &p in &order {
                let np = &m.node_pools[p];
                if pick == 1 {
                    for (k, limit) in &np.limits {
                        let rname = match k {
                            LimitKey::Nodes => "nodes".to_string(),
                            LimitKey::Resource(r) => m.resources.name(*r).to_string(),
                        };
                        let v = r6(*limit as f64 / 1000.0);
                        metrics.push(Metric {
                            name: name.into(),
                            labels: labels(&[("nodepool", &np.name), ("resource_type", &rname)]),
                            values: vec![v; self.times.len()],
                        });
                    }
                    continue;
                }
                let vec_of = |s: &Sample| if pick == 0 { s.usage[p].clone() } else { s.alloc[p].clone() };
                for r in 0..m.resources.len() as u16 {
                    if !self.samples.iter().any(|s| vec_of(s).get(r) != 0) {
                        continue;
                    }
                    let values = self.samples.iter().map(|s| r6(vec_of(s).get(r) as f64 / 1000.0)).collect();
                    metrics.push(Metric {
                        name: name.into(),
                        labels: labels(&[("nodepool", &np.name), ("resource_type", m.resources.name(r))]),
                        values,
                    });
                }
                if pick == 0 {
                    metrics.push(Metric {
                        name: name.into(),
                        labels: labels(&[("nodepool", &np.name), ("resource_type", "nodes")]),
                        values: self.samples.iter().map(|s| s.nodes[p] as f64).collect(),
                    });
                }
            }
        }
        for &p in &order {
            metrics.push(Metric {
                name: "karpenter_nodeclaims_launched_total".into(),
                labels: labels(&[("nodepool", &m.node_pools[p].name)]),
                values: self.samples.iter().map(|s| s.launched[p] as f64).collect(),
            });
        }
        let mut keys: Vec<&(usize, String)> = self.terminated.keys().collect();
        keys.sort_by(|a, b| m.node_pools[a.0].name.cmp(&m.node_pools[b.0].name).then(a.1.cmp(&b.1)));
        for k in keys {
            metrics.push(Metric {
                name: "karpenter_nodeclaims_terminated_total".into(),
                labels: labels(&[("nodepool", &m.node_pools[k.0].name), ("reason", &k.1)]),
                values: self.samples.iter().map(|s| s.terminated.get(k).copied().unwrap_or(0) as f64).collect(),
            });
        }
        metrics.push(Metric {
            name: "karpenter_scheduler_queue_depth".into(),
            labels: IndexMap::new(),
            values: self.samples.iter().map(|s| s.pending as f64).collect(),
        });
        metrics.push(Metric {
            name: "nodecast_cost_usd_total".into(),
            labels: IndexMap::new(),
            values: self.samples.iter().map(|s| r6(s.cost)).collect(),
        });
        metrics.push(Metric {
            name: "nodecast_price_per_hour_usd".into(),
            labels: IndexMap::new(),
            values: self.samples.iter().map(|s| r6(s.rate)).collect(),
        });
        // nodecast's own: Karpenter has no metric of a reservation's use.
        for (r, res) in m.reservations.iter().enumerate() {
            for (name, pick) in [("nodecast_capacity_reservation_used_instances", 0), ("nodecast_capacity_reservation_instances", 1)] {
                metrics.push(Metric {
                    name: name.into(),
                    labels: labels(&[("reservation_id", &res.id), ("instance_type", &res.instance_type)]),
                    values: self
                        .samples
                        .iter()
                        .map(|s| s.reserved.get(r).map_or(0.0, |u| if pick == 0 { u.0 as f64 } else { u.1 as f64 }))
                        .collect(),
                });
            }
        }
        Series { interval_seconds: self.interval, times_seconds: self.times.clone(), metrics }
    }
}
