//! What the HPA controller remembers between syncs and how it turns a metric proposal into the
//! replicas it writes (pkg/controller/podautoscaler/horizontal.go, v1.36, reconcileAutoscaler
//! onwards): the recommendations of the stabilization windows, the scale events the rate
//! policies count, the min/max and scale-up-limit rules without `behavior`. Time is simulated
//! seconds; every comparison keeps Go's strict `Before`/`After`.

use super::spec::{Behavior, HpaSpec, PolicyKind, Rules, Select, DEFAULT_DOWNSCALE_WINDOW};

/// Without `behavior`, a scale-up may at most double the replicas, or reach 4
/// (horizontal.go's scaleUpLimitFactor and scaleUpLimitMinimum).
const SCALE_UP_LIMIT_FACTOR: f64 = 2.0;
const SCALE_UP_LIMIT_MINIMUM: f64 = 4.0;

#[derive(Debug, Clone, Copy)]
struct Rec {
    replicas: i32,
    at: i64,
}

#[derive(Debug, Clone, Copy)]
struct ScaleEvent {
    change: i32,
    at: i64,
    outdated: bool,
}

/// One HPA's controller memory.
#[derive(Debug, Clone, Default)]
pub struct Controller {
    recs: Option<Vec<Rec>>,
    up: Vec<ScaleEvent>,
    down: Vec<ScaleEvent>,
}

/// The outcome of one sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The replicas the Scale has after the sync (the current count when it did not rescale).
    pub desired: i32,
    /// What the metrics proposed before stabilization and limits (None: not computed).
    pub proposal: Option<i32>,
}

impl Controller {
    /// One reconcile at `now` with the Scale's `current` replicas. `proposal`: the metrics'
    /// proposal (computeReplicasForMetrics), or None when they failed (no rescale); it is only
    /// asked for when the controller computes metrics.
    pub fn sync(&mut self, hpa: &HpaSpec, now: i64, current: i32, proposal: impl FnOnce() -> Option<i32>) -> Decision {
        // recordInitialRecommendation: the first sync remembers the current count.
        self.recs.get_or_insert_with(|| vec![Rec { replicas: current, at: now }]);
        let min = hpa.min_replicas;
        let (desired, metric) = if current == 0 {
            // HPAScaleToZero off: a target scaled to zero by hand is left alone.
            return Decision { desired: 0, proposal: None };
        } else if current > hpa.max_replicas {
            (hpa.max_replicas, None)
        } else if current < min {
            (min, None)
        } else {
            let Some(p) = proposal() else { return Decision { desired: current, proposal: None } };
            let desired = p.max(0);
            let d = match &hpa.behavior {
                None => self.normalize(now, current, desired, min, hpa.max_replicas),
                Some(b) => self.normalize_with_behavior(b, now, current, desired, min, hpa.max_replicas),
            };
            (d, Some(p))
        };
        if desired != current {
            if let Some(b) = &hpa.behavior {
                self.store_event(b, now, current, desired);
            }
        }
        Decision { desired, proposal: metric }
    }

    /// stabilizeRecommendation + convertDesiredReplicasWithRules (no `behavior`).
    fn normalize(&mut self, now: i64, current: i32, desired: i32, min: i32, max: i32) -> i32 {
        let cutoff = now - DEFAULT_DOWNSCALE_WINDOW;
        let recs = self.recs.get_or_insert_with(Vec::new);
        let mut stabilized = desired;
        let mut old = None;
        for (i, r) in recs.iter().enumerate() {
            if r.at < cutoff {
                old = Some(i);
            } else if r.replicas > stabilized {
                stabilized = r.replicas;
            }
        }
        let rec = Rec { replicas: desired, at: now };
        match old {
            Some(i) => recs[i] = rec,
            None => recs.push(rec),
        }
        let limit = (SCALE_UP_LIMIT_FACTOR * current as f64).max(SCALE_UP_LIMIT_MINIMUM) as i32;
        let max_allowed = max.min(limit);
        if stabilized < min {
            min
        } else if stabilized > max_allowed {
            max_allowed
        } else {
            stabilized
        }
    }

    /// stabilizeRecommendationWithBehaviors + convertDesiredReplicasWithBehaviorRate.
    fn normalize_with_behavior(&mut self, b: &Behavior, now: i64, current: i32, desired: i32, min: i32, max: i32) -> i32 {
        let up_cut = now - b.up.window.unwrap_or(0);
        let down_cut = now - b.down.window.unwrap_or(DEFAULT_DOWNSCALE_WINDOW);
        let recs = self.recs.get_or_insert_with(Vec::new);
        let (mut up_rec, mut down_rec) = (desired, desired);
        let mut old = None;
        for (i, r) in recs.iter().enumerate() {
            if r.at > up_cut {
                up_rec = up_rec.min(r.replicas);
            }
            if r.at > down_cut {
                down_rec = down_rec.max(r.replicas);
            }
            if r.at < up_cut && r.at < down_cut {
                old = Some(i);
            }
        }
        let rec = Rec { replicas: desired, at: now };
        match old {
            Some(i) => recs[i] = rec,
            None => recs.push(rec),
        }
        let stabilized = current.max(up_rec).min(down_rec);
        if stabilized > current {
            let limit = limit_up(current, &self.up, &self.down, &b.up, now).max(current);
            let max_allowed = max.min(limit);
            stabilized.min(max_allowed)
        } else if stabilized < current {
            let limit = limit_down(current, &self.up, &self.down, &b.down, now).min(current);
            let min_allowed = min.max(limit);
            stabilized.max(min_allowed)
        } else {
            stabilized
        }
    }

    /// storeScaleEvent: reuse the last slot older than the direction's longest policy period.
    fn store_event(&mut self, b: &Behavior, now: i64, prev: i32, new: i32) {
        let (events, rules, change) = if new > prev { (&mut self.up, &b.up, new - prev) } else { (&mut self.down, &b.down, prev - new) };
        let longest = rules.policies.iter().map(|p| p.period).max().unwrap_or(0).max(0);
        let cutoff = now - i64::from(longest);
        for e in events.iter_mut() {
            if e.at < cutoff {
                e.outdated = true;
            }
        }
        let slot = events.iter().rposition(|e| e.outdated);
        let ev = ScaleEvent { change, at: now, outdated: false };
        match slot {
            Some(i) => events[i] = ev,
            None => events.push(ev),
        }
    }
}

/// Replicas changed in the direction of `events` during the last `period` seconds.
fn changed_within(period: i32, events: &[ScaleEvent], now: i64) -> i32 {
    let cutoff = now - i64::from(period);
    events.iter().filter(|e| e.at > cutoff).map(|e| e.change).sum()
}

fn limit_up(current: i32, up: &[ScaleEvent], down: &[ScaleEvent], rules: &Rules, now: i64) -> i32 {
    let (mut result, pick): (i32, fn(i32, i32) -> i32) = match rules.select {
        Select::Disabled => return current,
        Select::Min => (i32::MAX, std::cmp::min),
        Select::Max => (i32::MIN, std::cmp::max),
    };
    for p in &rules.policies {
        let start = current - changed_within(p.period, up, now) + changed_within(p.period, down, now);
        let proposed = match p.kind {
            PolicyKind::Pods => start + p.value,
            PolicyKind::Percent => (start as f64 * (1.0 + p.value as f64 / 100.0)).ceil() as i32,
        };
        result = pick(result, proposed);
    }
    result
}

fn limit_down(current: i32, up: &[ScaleEvent], down: &[ScaleEvent], rules: &Rules, now: i64) -> i32 {
    let (mut result, pick): (i32, fn(i32, i32) -> i32) = match rules.select {
        Select::Disabled => return current,
        Select::Min => (i32::MIN, std::cmp::max),
        Select::Max => (i32::MAX, std::cmp::min),
    };
    for p in &rules.policies {
        let start = current - changed_within(p.period, up, now) + changed_within(p.period, down, now);
        let proposed = match p.kind {
            PolicyKind::Pods => start - p.value,
            // Go's int32(float64) truncates toward zero.
            PolicyKind::Percent => (start as f64 * (1.0 - p.value as f64 / 100.0)) as i32,
        };
        result = pick(result, proposed);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::super::spec::{default_down, Policy};
    use super::*;

    fn hpa(behavior: Option<Behavior>) -> HpaSpec {
        HpaSpec {
            namespace: "default".into(),
            name: "h".into(),
            target_kind: "Deployment".into(),
            target_name: "d".into(),
            min_replicas: 2,
            max_replicas: 10,
            metrics: Vec::new(),
            behavior,
            source: None,
            document: 0,
        }
    }

    /// The seed guide's vLLM behavior: up 2 pods / 60 s after a 60 s window; down 1 pod / 120 s
    /// after a 300 s window.
    fn guide() -> Behavior {
        let rules = |w, v, p| Rules {
            window: Some(w),
            select: Select::Max,
            policies: vec![Policy { kind: PolicyKind::Pods, value: v, period: p }],
            tolerance: None,
        };
        Behavior { up: rules(60, 2, 60), down: rules(300, 1, 120) }
    }

    #[test]
    fn scale_up_waits_for_the_window_then_goes_2_pods_a_minute() {
        let h = hpa(Some(guide()));
        let mut c = Controller::default();
        let mut cur = 2;
        let mut seen = Vec::new();
        for t in (0..=300).step_by(15) {
            let d = c.sync(&h, t, cur, || Some(if t == 0 { 2 } else { 10 }));
            cur = d.desired;
            seen.push((t, cur));
        }
        // The 60 s window holds the recommendation of 2 (made at 0 s) until it is 60 s old
        // (Go's strict After: a sample exactly 60 s old is out of the window).
        assert_eq!(seen[3], (45, 2));
        assert_eq!(seen[4], (60, 4));
        // Then 2 pods per 60 s: the event at 60 s counts until it is exactly 60 s old.
        assert_eq!(seen[7], (105, 4));
        assert!(seen.contains(&(120, 6)) && seen.contains(&(180, 8)) && seen.contains(&(240, 10)), "{seen:?}");
    }

    #[test]
    fn without_behavior_scale_up_is_capped_at_double_and_down_held_five_minutes() {
        let h = hpa(None);
        let mut c = Controller::default();
        assert_eq!(c.sync(&h, 0, 2, || Some(9)).desired, 4);
        assert_eq!(c.sync(&h, 15, 4, || Some(9)).desired, 8);
        assert_eq!(c.sync(&h, 30, 8, || Some(2)).desired, 9);
        // 9 was last recommended at 15 s: held while it is at most 300 s old.
        assert_eq!(c.sync(&h, 315, 9, || Some(2)).desired, 9);
        assert_eq!(c.sync(&h, 330, 9, || Some(2)).desired, 2);
    }

    #[test]
    fn min_max_and_failed_metrics() {
        let h = hpa(Some(Behavior { up: super::super::spec::default_up(), down: default_down() }));
        let mut c = Controller::default();
        assert_eq!(c.sync(&h, 0, 1, || unreachable!()).desired, 2);
        assert_eq!(c.sync(&h, 15, 12, || unreachable!()).desired, 10);
        assert_eq!(c.sync(&h, 30, 5, || None), Decision { desired: 5, proposal: None });
        assert_eq!(c.sync(&h, 45, 0, || unreachable!()).desired, 0);
    }
}
