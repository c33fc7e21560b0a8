//! A KEDA ScaledJob (keda.sh/v1alpha1), as KEDA v2.21.0 reads and runs it: every
//! pollingInterval the scale loop reads each trigger's queue length, combines the triggers
//! (pkg/scaling/scaledjob/metrics.go: CalculateQueueLengthAndMaxValue, IsScaledJobActive with
//! multipleScalersCalculation max/min/avg/sum), and creates Jobs from its `jobTargetRef` as the
//! scaling strategy allows (pkg/scaling/executor/scale_jobs.go: getScalingDecision and the
//! default / custom / accurate / eager strategies, createJobs). The functions here are pure so the
//! oracle (oracle/keda) can replay them against KEDA's own.

use super::triggers::{self, Kind, Problem, Trigger};
use serde_json::{json, Map, Value};

/// KEDA's defaults (scaledjob_types.go, scale_jobs.go).
pub const DEFAULT_MAX: i64 = 100;
pub const DEFAULT_HISTORY: i64 = 100;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Strategy {
    Default,
    /// `customScalingQueueLengthDeduction`, `customScalingRunningJobPercentage` (already a float:
    /// KEDA falls back to the default strategy when the text does not parse).
    Custom {
        deduction: Option<i32>,
        percentage: Option<f64>,
    },
    Accurate,
    Eager,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calc {
    Max,
    Min,
    Avg,
    Sum,
}

/// Which pods count a Job as pending (`scalingStrategy.pendingPodConditions`): with none, a
/// Job is pending while none of its pods runs or has succeeded; with conditions, while none of
/// its pods has all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodCondition {
    /// PodScheduled: bound to a node.
    Scheduled,
    /// Initialized, ContainersReady, Ready: its containers started (the simulator's running pod).
    Started,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub namespace: String,
    pub name: String,
    pub polling: i64,
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub successful_limit: i64,
    pub failed_limit: i64,
    pub strategy: Strategy,
    pub calc: Calc,
    pub pending_conditions: Vec<PodCondition>,
    pub triggers: Vec<Trigger>,
    /// The batch/v1 Job the ScaledJob creates (its jobTargetRef, named after the ScaledJob).
    pub job: Value,
}

impl JobSpec {
    /// ScaledJob.MinReplicaCount().
    pub fn min_replica_count(&self) -> i64 {
        match (self.min, self.max) {
            (Some(mn), Some(mx)) if mn > mx => i64::from(mx),
            (Some(mn), _) => i64::from(mn),
            (None, _) => 0,
        }
    }

    /// ScaledJob.MaxReplicaCount(): net of the minimum.
    pub fn max_replica_count(&self) -> i64 {
        match (self.min, self.max) {
            (Some(mn), Some(mx)) if mn > mx => i64::from(mx),
            (_, Some(mx)) => i64::from(mx) - self.min_replica_count(),
            (_, None) => DEFAULT_MAX,
        }
    }
}

/// One scaler's reading (scaledjob.ScalerMetrics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalerMetrics {
    pub queue_length: f64,
    pub max_value: f64,
    pub is_active: bool,
}

/// A metric value as KEDA's scalers write it (GenerateMetricInMili: `%.3f`), read back as a float.
pub fn metric_value(x: f64) -> f64 {
    crate::quantity::parse_milli(&triggers::quantity_text(x)).map_or(0.0, |m| m as f64 / 1000.0)
}

/// CalculateQueueLengthAndMaxValue for one trigger reading `value`: the queue, and the jobs it
/// asks for (queue ÷ the AverageValue target, at most maxReplicaCount; 0 with a Value target).
pub fn scaler_metrics(t: &Trigger, value: f64, max_replica_count: i64) -> ScalerMetrics {
    let queue_length = metric_value(value);
    let target = match t.kind {
        Kind::External { target, value: false, .. } => metric_value(target),
        _ => 0.0,
    };
    let max_value = if target != 0.0 { (queue_length / target).min(max_replica_count as f64) } else { 0.0 };
    ScalerMetrics { queue_length, max_value, is_active: t.active(value) }
}

/// IsScaledJobActive: (active, ceil(queue length), ceil(max value)).
pub fn is_active(m: &[ScalerMetrics], calc: Calc, min_rc: i64, max_rc: i64) -> (bool, i64, i64) {
    let (mut queue, mut max, mut active) = (0.0f64, 0.0f64, false);
    match calc {
        Calc::Min => {
            for s in m {
                if (queue == 0.0 || s.queue_length < queue) && s.is_active {
                    (queue, max, active) = (s.queue_length, s.max_value, s.is_active);
                }
            }
        }
        Calc::Avg => {
            let (mut qs, mut ms, mut n) = (0.0, 0.0, 0);
            for s in m.iter().filter(|s| s.is_active) {
                qs += s.queue_length;
                ms += s.max_value;
                active = true;
                n += 1;
            }
            if n != 0 {
                queue = qs / f64::from(n);
                max = ms / f64::from(n);
            }
        }
        Calc::Sum => {
            for s in m.iter().filter(|s| s.is_active) {
                queue += s.queue_length;
                max += s.max_value;
                active = true;
            }
        }
        Calc::Max => {
            for s in m {
                if s.queue_length > queue && s.is_active {
                    (queue, max, active) = (s.queue_length, s.max_value, s.is_active);
                }
            }
        }
    }
    if min_rc > 0 {
        active = true;
    }
    let max = max.min(max_rc as f64);
    (active, ceil_i64(queue), ceil_i64(max))
}

/// Go's `int64(math.Ceil(x))` on the values a simulation reaches.
fn ceil_i64(x: f64) -> i64 {
    let c = x.ceil();
    if c.is_nan() {
        0
    } else {
        c.clamp(i64::MIN as f64, i64::MAX as f64) as i64
    }
}

/// getScalingDecision: below minReplicaCount, the missing Jobs; else the strategy, with the
/// running Jobs net of the minimum: (effective max scale, scale to).
pub fn scaling_decision(s: &JobSpec, running: i64, pending: i64, scale_to: i64, max_scale: i64) -> (i64, i64) {
    let min_rc = s.min_replica_count();
    if running < min_rc {
        return (min_rc - running, min_rc - running);
    }
    effective_max_scale(s.strategy, max_scale, running - min_rc, pending, s.max_replica_count(), scale_to)
}

/// The strategies' GetEffectiveMaxScale(maxScale, runningJobCount, pendingJobCount,
/// maxReplicaCount, scaleTo): (effective max scale, scale to).
pub fn effective_max_scale(strategy: Strategy, max_scale: i64, running: i64, pending: i64, max_rc: i64, scale_to: i64) -> (i64, i64) {
    match strategy {
        Strategy::Default => (max_scale - running, scale_to),
        Strategy::Custom { deduction, percentage } => {
            let d = i64::from(deduction.unwrap_or(0));
            let p = percentage.unwrap_or(0.0);
            // Go's int64(float64) truncates toward zero.
            ((max_scale - d - (running as f64 * p) as i64).min(max_rc), scale_to)
        }
        Strategy::Accurate => {
            if max_scale + running - pending > max_rc {
                (max_rc - running, scale_to)
            } else {
                (max_scale - pending, scale_to)
            }
        }
        Strategy::Eager => ((max_rc - running - pending).min(max_scale), max_rc),
    }
}

/// RequestJobScale's job count: none when inactive; else min(scale to, effective max), none
/// when the effective max is not positive (createJobs).
pub fn jobs_to_create(active: bool, effective_max: i64, scale_to: i64) -> i64 {
    if !active || effective_max <= 0 {
        return 0;
    }
    scale_to.min(effective_max).max(0)
}

fn int(o: &Map<String, Value>, key: &str, least: i64, out: &mut Vec<Problem>) -> Option<i64> {
    let v = o.get(key).filter(|v| !v.is_null())?;
    match v.as_i64() {
        Some(n) if i32::try_from(n).is_ok() && n >= least => Some(n),
        _ => {
            out.push((
                format!("spec.{key}"),
                "out-of-range",
                format!("spec.{key} must be a 32-bit integer ≥ {least}, found {}", crate::manifest::reader::render_short(v)),
                format!("{key} ≥ {least}"),
            ));
            None
        }
    }
}

/// Read one ScaledJob document. Errors are (path, code, message, help).
pub fn parse(doc: &Value) -> Result<JobSpec, Vec<Problem>> {
    let mut out: Vec<Problem> = Vec::new();
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let namespace = doc.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
    if name.is_empty() {
        out.push(("metadata.name".into(), "required", "a ScaledJob needs a name".into(), "metadata: {name: batch}".into()));
    }
    if doc.pointer("/metadata/annotations/autoscaling.keda.sh~1paused").is_some() {
        out.push((
            "metadata.annotations.autoscaling.keda.sh/paused".into(),
            "unsupported-value",
            "a paused ScaledJob is not modelled by nodecast's KEDA simulation".into(),
            "remove the annotation".into(),
        ));
    }
    let empty = Map::new();
    let spec = match doc.get("spec") {
        Some(Value::Object(o)) => o,
        _ => {
            out.push(("spec".into(), "required", "a ScaledJob needs a spec".into(), "spec: {jobTargetRef: {...}, triggers: [...]}".into()));
            &empty
        }
    };
    const KNOWN: [&str; 12] = [
        "jobTargetRef",
        "pollingInterval",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
        "rolloutStrategy",
        "rollout",
        "envSourceContainerName",
        "minReplicaCount",
        "maxReplicaCount",
        "scalingStrategy",
        "triggers",
        "maxReplicaCount",
    ];
    for k in spec.keys() {
        if !KNOWN.contains(&k.as_str()) {
            out.push((format!("spec.{k}"), "unknown-field", format!("unknown field {k:?}"), KNOWN[..11].join(", ")));
        }
    }
    let polling = int(spec, "pollingInterval", 1, &mut out).unwrap_or(super::object::DEFAULT_POLLING_SECONDS);
    let successful_limit = int(spec, "successfulJobsHistoryLimit", 0, &mut out).unwrap_or(DEFAULT_HISTORY);
    let failed_limit = int(spec, "failedJobsHistoryLimit", 0, &mut out).unwrap_or(DEFAULT_HISTORY);
    let min = int(spec, "minReplicaCount", 0, &mut out).map(|n| n as i32);
    let max = int(spec, "maxReplicaCount", 1, &mut out).map(|n| n as i32);
    for (k, allowed) in [("rolloutStrategy", &["gradual", "immediate"][..])] {
        if let Some(v) = spec.get(k).and_then(Value::as_str).filter(|v| !v.is_empty()) {
            if !allowed.contains(&v) {
                out.push((format!("spec.{k}"), "unsupported-value", format!("unsupported value {v:?}"), allowed.join(", ")));
            }
        }
    }
    let (mut strategy, mut calc, mut pending_conditions) = (Strategy::Default, Calc::Max, Vec::new());
    match spec.get("scalingStrategy") {
        None | Some(Value::Null) => {}
        Some(Value::Object(s)) => {
            for k in s.keys() {
                if ![
                    "strategy",
                    "customScalingQueueLengthDeduction",
                    "customScalingRunningJobPercentage",
                    "pendingPodConditions",
                    "multipleScalersCalculation",
                ]
                .contains(&k.as_str())
                {
                    out.push((format!("spec.scalingStrategy.{k}"), "unknown-field", format!("unknown field {k:?}"), "strategy, customScalingQueueLengthDeduction, customScalingRunningJobPercentage, pendingPodConditions, multipleScalersCalculation".into()));
                }
            }
            strategy = match s.get("strategy").and_then(Value::as_str).unwrap_or("") {
                "" | "default" => Strategy::Default,
                "accurate" => Strategy::Accurate,
                "eager" => Strategy::Eager,
                "custom" => {
                    let deduction = s.get("customScalingQueueLengthDeduction").and_then(Value::as_i64).map(|n| n as i32);
                    let pct = s.get("customScalingRunningJobPercentage").and_then(Value::as_str).unwrap_or("");
                    // NewScalingStrategy: an unparsable percentage selects the default strategy.
                    match pct.parse::<f64>() {
                        Ok(p) => Strategy::Custom { deduction, percentage: Some(p) },
                        Err(_) => Strategy::Default,
                    }
                }
                other => {
                    out.push((
                        "spec.scalingStrategy.strategy".into(),
                        "unsupported-value",
                        format!("unsupported value {other:?}"),
                        "default, custom, accurate, eager".into(),
                    ));
                    Strategy::Default
                }
            };
            calc = match s.get("multipleScalersCalculation").and_then(Value::as_str).unwrap_or("") {
                "" | "max" => Calc::Max,
                "min" => Calc::Min,
                "avg" => Calc::Avg,
                "sum" => Calc::Sum,
                other => {
                    out.push((
                        "spec.scalingStrategy.multipleScalersCalculation".into(),
                        "unsupported-value",
                        format!("unsupported value {other:?}"),
                        "min, avg, sum, max".into(),
                    ));
                    Calc::Max
                }
            };
            if let Some(Value::Array(c)) = s.get("pendingPodConditions") {
                for (i, v) in c.iter().enumerate() {
                    match v.as_str() {
                        Some("PodScheduled") => pending_conditions.push(PodCondition::Scheduled),
                        Some("Initialized" | "ContainersReady" | "Ready") => pending_conditions.push(PodCondition::Started),
                        _ => out.push((
                            format!("spec.scalingStrategy.pendingPodConditions[{i}]"),
                            "unsupported-value",
                            format!("pod condition {} is not modelled", crate::manifest::reader::render_short(v)),
                            "PodScheduled, Initialized, ContainersReady, Ready".into(),
                        )),
                    }
                }
            }
        }
        Some(_) => out.push((
            "spec.scalingStrategy".into(),
            "wrong-type",
            "scalingStrategy is a mapping".into(),
            "scalingStrategy: {strategy: accurate}".into(),
        )),
    }
    let triggers = triggers::parse(spec.get("triggers"), true, &mut out);
    let job_spec = match spec.get("jobTargetRef") {
        Some(Value::Object(j)) => {
            let mut j = j.clone();
            let tpl = j.entry("template").or_insert_with(|| json!({}));
            if tpl.pointer("/spec/restartPolicy").is_none() {
                // generateJobs: a Job without a restartPolicy gets OnFailure.
                if let Some(s) = tpl.get_mut("spec").and_then(Value::as_object_mut) {
                    s.insert("restartPolicy".into(), json!("OnFailure"));
                }
            }
            Value::Object(j)
        }
        _ => {
            out.push((
                "spec.jobTargetRef".into(),
                "required",
                "a ScaledJob needs jobTargetRef (a Job spec)".into(),
                "jobTargetRef: {template: {spec: {containers: [...]}}}".into(),
            ));
            Value::Null
        }
    };
    if !out.is_empty() {
        return Err(out);
    }
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": {"scaledjob.keda.sh/name": name}},
        "spec": job_spec});
    Ok(JobSpec { namespace, name, polling, min, max, successful_limit, failed_limit, strategy, calc, pending_conditions, triggers, job })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sj(strategy: Value) -> JobSpec {
        parse(&json!({"metadata": {"name": "q"}, "spec": {"jobTargetRef": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
            "maxReplicaCount": 10, "scalingStrategy": strategy,
            "triggers": [{"type": "aws-sqs-queue", "metadata": {"queueLength": "1"}}]}}))
        .unwrap()
    }

    #[test]
    fn strategies_follow_keda() {
        // KEDA's scale_jobs_test.go table (TestNewScalingStrategy family): maxScale 10, running 4, pending 2.
        let d = sj(json!({}));
        assert_eq!(scaling_decision(&d, 4, 2, 10, 10), (6, 10));
        let a = sj(json!({"strategy": "accurate"}));
        assert_eq!(scaling_decision(&a, 4, 2, 10, 10), (6, 10));
        assert_eq!(scaling_decision(&a, 2, 2, 5, 5), (3, 5));
        let e = sj(json!({"strategy": "eager"}));
        assert_eq!(scaling_decision(&e, 4, 2, 3, 3), (3, 10));
        let c = sj(json!({"strategy": "custom", "customScalingQueueLengthDeduction": 1, "customScalingRunningJobPercentage": "0.5"}));
        assert_eq!(scaling_decision(&c, 4, 2, 10, 10), (7, 10));
        let bad = sj(json!({"strategy": "custom", "customScalingRunningJobPercentage": "x"}));
        assert_eq!(bad.strategy, Strategy::Default);
        assert_eq!(jobs_to_create(true, 6, 10), 6);
        assert_eq!(jobs_to_create(false, 6, 10), 0);
        assert_eq!(jobs_to_create(true, -1, 10), 0);
    }

    /// Scenarios distilled from KEDA v2.21.0's pkg/scaling/executor/scale_jobs_test.go, named
    /// after its tests: GetEffectiveMaxScale(maxScale, running, pending, maxReplicaCount, scaleTo).
    #[test]
    fn keda_scale_jobs_test_scenarios() {
        let e = |st: Strategy, a: [i64; 5]| effective_max_scale(st, a[0], a[1], a[2], a[3], a[4]);
        let custom = |d: Option<i32>, p: f64| Strategy::Custom { deduction: d, percentage: Some(p) };
        // TestDefaultScalingStrategy
        assert_eq!(e(Strategy::Default, [3, 2, 0, 5, 1]).0, 1);
        assert_eq!(e(Strategy::Default, [2, 0, 0, 5, 1]).0, 2);
        // TestCustomScalingStrategy
        assert_eq!(e(custom(Some(1), 0.5), [3, 2, 0, 5, 1]).0, 1);
        assert_eq!(e(custom(Some(1), 0.5), [10, 0, 0, 10, 1]).0, 9);
        assert_eq!(e(custom(Some(2), 0.0), [3, 2, 0, 5, 1]).0, 1);
        assert_eq!(e(custom(Some(-2), 0.0), [3, 2, 0, 4, 1]).0, 4);
        // TestCustomScalingStrategyNilQueueLengthDeduction
        assert_eq!(e(custom(None, 0.5), [10, 2, 0, 100, 1]).0, 9);
        assert_eq!(e(custom(None, 0.5), [10, 0, 0, 100, 1]).0, 10);
        // TestAccurateScalingStrategy
        for (a, want) in [
            ([3, 2, 0, 5, 1], 3),
            ([5, 2, 0, 5, 1], 3),
            ([3, 4, 2, 10, 1], 1),
            ([5, 4, 2, 5, 1], 1),
            ([3, 3, 3, 5, 1], 0),
            ([15, 15, 15, 20, 1], 0),
            ([10, 10, 10, 15, 1], 0),
            ([20, 15, 10, 20, 1], 5),
        ] {
            assert_eq!(e(Strategy::Accurate, a).0, want, "{a:?}");
        }
        // TestEagerScalingStrategy
        for (a, want) in [
            ([4, 3, 0, 10, 1], (4, 10)),
            ([4, 0, 3, 10, 1], (4, 10)),
            ([4, 7, 0, 10, 1], (3, 10)),
            ([4, 1, 6, 10, 1], (3, 10)),
            ([15, 0, 0, 10, 1], (10, 10)),
        ] {
            assert_eq!(e(Strategy::Eager, a), want, "{a:?}");
        }
        // TestRunningJobCountSmallerMinReplicaCount, …IsDeductedFromMinReplicaCount,
        // …GreaterOrEqualMinReplicaCountExecutesScalingStrategy (getScalingDecision).
        let mut s = sj(json!({}));
        s.min = Some(2);
        assert_eq!(scaling_decision(&s, 0, 0, 0, 0), (2, 2));
        assert_eq!(scaling_decision(&s, 1, 0, 0, 0), (1, 1));
        s.min = Some(1);
        assert_eq!(scaling_decision(&s, 1, 0, 2, 2), (2, 2));
        // TestNewNewScalingStrategy: an empty percentage selects the default strategy.
        assert_eq!(
            sj(json!({"strategy": "custom", "customScalingQueueLengthDeduction": 1, "customScalingRunningJobPercentage": ""})).strategy,
            Strategy::Default
        );
    }

    #[test]
    fn multiple_scalers() {
        let m = [
            ScalerMetrics { queue_length: 4.0, max_value: 4.0, is_active: true },
            ScalerMetrics { queue_length: 9.0, max_value: 3.0, is_active: true },
            ScalerMetrics { queue_length: 20.0, max_value: 20.0, is_active: false },
        ];
        assert_eq!(is_active(&m, Calc::Max, 0, 100), (true, 9, 3));
        assert_eq!(is_active(&m, Calc::Min, 0, 100), (true, 4, 4));
        assert_eq!(is_active(&m, Calc::Avg, 0, 100), (true, 7, 4));
        assert_eq!(is_active(&m, Calc::Sum, 0, 100), (true, 13, 7));
        assert_eq!(is_active(&m[2..], Calc::Max, 0, 100), (false, 0, 0));
        assert_eq!(is_active(&m[2..], Calc::Max, 1, 100), (true, 0, 0));
        assert_eq!(is_active(&m, Calc::Sum, 0, 5), (true, 13, 5));
    }

    #[test]
    fn replica_counts_and_errors() {
        let s = parse(&json!({"metadata": {"name": "q"}, "spec": {"jobTargetRef": {"template": {"spec": {}}}, "minReplicaCount": 2, "maxReplicaCount": 10,
            "triggers": [{"type": "redis", "metadata": {}}]}}))
        .unwrap();
        assert_eq!((s.min_replica_count(), s.max_replica_count()), (2, 8));
        assert_eq!(s.job["spec"]["template"]["spec"]["restartPolicy"], "OnFailure");
        let e = parse(
            &json!({"metadata": {"name": "q"}, "spec": {"maxReplicaCount": 0, "scalingStrategy": {"strategy": "fast"}, "triggers": []}}),
        )
        .unwrap_err();
        let paths: Vec<&str> = e.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(paths, ["spec.maxReplicaCount", "spec.scalingStrategy.strategy", "spec.triggers", "spec.jobTargetRef"]);
    }
}

/// One ScaledJob trigger of a replayed case (the KEDA oracle's format, oracle/keda): its
/// target, activation threshold and whether its metricType is Value.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReplayTrigger {
    /// The trigger's target (prometheus `threshold`).
    pub target: f64,
    /// Its `activationThreshold`.
    #[serde(default)]
    pub activation: f64,
    /// `metricType: Value` (else AverageValue).
    #[serde(default)]
    pub value: bool,
}

/// Replays one oracle case: a ScaledJob (multipleScalersCalculation `calc`, minReplicaCount
/// `min` when above 0, maxReplicaCount `max`) whose prometheus triggers read `values[poll][i]`:
/// per poll, (active, scale to, max scale) as IsScaledJobActive answers.
pub fn replay(
    calc: &str,
    min: i64,
    max: i64,
    triggers: &[ReplayTrigger],
    values: &[Vec<f64>],
) -> Result<Vec<(bool, i64, i64)>, Vec<Problem>> {
    let ts: Vec<Value> = triggers
        .iter()
        .map(|t| {
            let mut j = json!({"type": "prometheus", "metadata": {"threshold": t.target.to_string(), "activationThreshold": t.activation.to_string()}});
            if t.value {
                j["metricType"] = json!("Value");
            }
            j
        })
        .collect();
    let mut spec = json!({"jobTargetRef": {"template": {"spec": {}}}, "maxReplicaCount": max, "triggers": ts,
        "scalingStrategy": {"multipleScalersCalculation": calc}});
    if min > 0 {
        spec["minReplicaCount"] = json!(min);
    }
    let s = parse(&json!({"metadata": {"name": "replay"}, "spec": spec}))?;
    let max_rc = s.max_replica_count();
    Ok(values
        .iter()
        .map(|vs| {
            let m: Vec<ScalerMetrics> = s.triggers.iter().zip(vs).map(|(t, &v)| scaler_metrics(t, v, max_rc)).collect();
            is_active(&m, s.calc, s.min_replica_count(), max_rc)
        })
        .collect())
}
