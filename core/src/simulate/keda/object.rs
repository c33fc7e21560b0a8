//! A KEDA ScaledObject (keda.sh/v1alpha1), as KEDA v2.21.0 reads, admits and runs it:
//! - admission: the CRD's bounds (apis/keda/v1alpha1/scaledobject_types.go markers) and the
//!   webhook's checks (scaledobject_webhook.go: replica-count bounds, name lengths, only-cpu/memory
//!   triggers with minReplicaCount 0, fallback);
//! - the HPA it generates (controllers/keda/hpa.go newHPAForScaledObject: an External metric per
//!   trigger with the trigger's target, Resource metrics for cpu/memory, minReplicas
//!   max(minReplicaCount, 1), maxReplicas default 100, `advanced.horizontalPodAutoscalerConfig.
//!   behavior` passed through), checked by hpa/spec.rs as the apiserver checks any HPA;
//! - the scale loop's own decisions every pollingInterval (pkg/scaling/executor/
//!   scale_scaledobjects.go RequestScale): activation from zero (or from idle), deactivation to
//!   zero (or idle) after cooldownPeriod, and the reset to minReplicaCount.

use super::triggers::{self, Kind, Problem, Trigger};
use serde_json::{json, Map, Value};

/// KEDA's defaults (withtriggers_types.go, scale_executor.go, scaledobject_types.go).
pub const DEFAULT_POLLING_SECONDS: i64 = 30;
pub const DEFAULT_COOLDOWN_SECONDS: i64 = 300;
pub const DEFAULT_HPA_MAX: i32 = 100;
/// Label values (and so ScaledObject and HPA names) are at most 63 characters.
const MAX_LABEL_VALUE: usize = 63;

#[derive(Debug, Clone, PartialEq)]
pub struct ObjectSpec {
    pub namespace: String,
    pub name: String,
    pub target_kind: String,
    pub target_name: String,
    /// `minReplicaCount` as written (None: unset, KEDA's 0).
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub idle: Option<i32>,
    pub polling: i64,
    pub cooldown: i64,
    pub initial_cooldown: i64,
    pub triggers: Vec<Trigger>,
    /// The HorizontalPodAutoscaler KEDA creates for it (autoscaling/v2 manifest).
    pub hpa: Value,
}

/// The ScaledObject's status KEDA keeps between polls: `lastActiveTime` (simulated second).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectState {
    pub last_active: Option<i64>,
}

/// What one poll did (RequestScale), for the report and the oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Nothing written.
    None,
    /// scaleFromZeroOrIdle: the target activated to this count.
    Activate(i32),
    /// scaleToZeroOrIdle after the cooldown: the target deactivated to this count.
    Deactivate(i32),
    /// Inactive, no idle count and fewer replicas than minReplicaCount: reset to it.
    ResetToMin(i32),
    /// Inactive but still within the cooldown.
    CoolingDown,
}

impl Action {
    pub fn replicas(self) -> Option<i32> {
        match self {
            Action::Activate(n) | Action::Deactivate(n) | Action::ResetToMin(n) => Some(n),
            Action::None | Action::CoolingDown => None,
        }
    }
}

/// One poll of KEDA's scale loop for a ScaledObject (RequestScale; isError is never set: a
/// demand series always answers). `now` and the ScaledObject's creation are simulated seconds;
/// Go's `Before` is strict.
pub fn request_scale(s: &ObjectSpec, st: &mut ObjectState, active: bool, current: i32, now: i64, created: i64) -> Action {
    let min = s.min.unwrap_or(0);
    if active {
        if (s.idle.is_some() && current < min) || current == 0 {
            // scaleFromZeroOrIdle: minReplicaCount when above 0, else 1.
            st.last_active = Some(now);
            return Action::Activate(if min > 0 { min } else { 1 });
        }
        st.last_active = Some(now);
        return Action::None;
    }
    if s.idle.is_some_and(|i| current > i) || (current > 0 && min == 0) {
        let due = match st.last_active {
            None => created + s.initial_cooldown < now,
            Some(t) => t + s.cooldown < now,
        };
        if !due {
            return Action::CoolingDown;
        }
        // getIdleOrMinimumReplicaCount.
        return Action::Deactivate(s.idle.or(s.min).unwrap_or(0));
    }
    if s.idle.is_none() && current < min {
        return Action::ResetToMin(min);
    }
    Action::None
}

/// Whether the ScaledObject is active given its triggers' values now (getScaledObjectState):
/// any external trigger above its activation threshold; a ScaledObject whose triggers are all
/// cpu/memory is always active.
pub fn is_active(s: &ObjectSpec, values: &[f64]) -> bool {
    if s.triggers.iter().all(|t| matches!(t.kind, Kind::Resource { .. })) {
        return true;
    }
    s.triggers.iter().zip(values).any(|(t, &v)| t.active(v))
}

fn int(o: &Map<String, Value>, key: &str, least: i64, out: &mut Vec<Problem>) -> Option<i64> {
    let v = o.get(key).filter(|v| !v.is_null())?;
    match v.as_i64() {
        Some(n) if i32::try_from(n).is_ok() && n >= least => Some(n),
        Some(n) if i32::try_from(n).is_ok() => {
            out.push((
                format!("spec.{key}"),
                "out-of-range",
                format!("spec.{key} in body should be greater than or equal to {least}, found {n}"),
                format!("{key} ≥ {least}"),
            ));
            None
        }
        _ => {
            out.push((
                format!("spec.{key}"),
                "wrong-type",
                format!("expected a 32-bit integer, found {}", crate::manifest::reader::render_short(v)),
                "e.g. 30".into(),
            ));
            None
        }
    }
}

/// Annotations that change the scale loop in ways nodecast does not model: refused.
const PAUSING: [&str; 5] = [
    "autoscaling.keda.sh/paused",
    "autoscaling.keda.sh/paused-replicas",
    "autoscaling.keda.sh/paused-scale-in",
    "autoscaling.keda.sh/paused-scale-out",
    "autoscaling.keda.sh/force-activation",
];

/// Read one ScaledObject document. Errors are (path, code, message, help).
pub fn parse(doc: &Value) -> Result<ObjectSpec, Vec<Problem>> {
    let mut out: Vec<Problem> = Vec::new();
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let namespace = doc.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
    if name.is_empty() {
        out.push(("metadata.name".into(), "required", "a ScaledObject needs a name".into(), "metadata: {name: vllm}".into()));
    } else if name.len() > MAX_LABEL_VALUE {
        out.push(("metadata.name".into(), "invalid-value", format!("scaledobject name {name:?} is {} characters long; must be no more than {MAX_LABEL_VALUE} characters because it is used as the \"scaledobject.keda.sh/name\" label value", name.len()), "a shorter name".into()));
    }
    if let Some(Value::Object(a)) = doc.pointer("/metadata/annotations") {
        for k in PAUSING {
            if a.contains_key(k) {
                out.push((
                    format!("metadata.annotations.{k}"),
                    "unsupported-value",
                    format!("the {k} annotation is not modelled by nodecast's KEDA simulation"),
                    "remove the annotation".into(),
                ));
            }
        }
    }
    let empty = Map::new();
    let spec = match doc.get("spec") {
        Some(Value::Object(o)) => o,
        _ => {
            out.push((
                "spec".into(),
                "required",
                "a ScaledObject needs a spec".into(),
                "spec: {scaleTargetRef: {name: vllm}, triggers: [...]}".into(),
            ));
            &empty
        }
    };
    const KNOWN: [&str; 10] = [
        "scaleTargetRef",
        "pollingInterval",
        "initialCooldownPeriod",
        "cooldownPeriod",
        "idleReplicaCount",
        "minReplicaCount",
        "maxReplicaCount",
        "advanced",
        "triggers",
        "fallback",
    ];
    for k in spec.keys() {
        if !KNOWN.contains(&k.as_str()) {
            out.push((format!("spec.{k}"), "unknown-field", format!("unknown field {k:?}"), KNOWN.join(", ")));
        }
    }
    let polling = int(spec, "pollingInterval", 1, &mut out).unwrap_or(DEFAULT_POLLING_SECONDS);
    let initial_cooldown = int(spec, "initialCooldownPeriod", 0, &mut out).unwrap_or(0);
    let cooldown = int(spec, "cooldownPeriod", 0, &mut out).unwrap_or(DEFAULT_COOLDOWN_SECONDS);
    let idle = int(spec, "idleReplicaCount", 0, &mut out).map(|n| n as i32);
    let min = int(spec, "minReplicaCount", 0, &mut out).map(|n| n as i32);
    let max = int(spec, "maxReplicaCount", 1, &mut out).map(|n| n as i32);
    let hpa_max = max.unwrap_or(DEFAULT_HPA_MAX);
    // The CRD's rule, then CheckReplicaCountBoundsAreValid (whose min is GetHPAMinReplicas
    // when minReplicaCount is set: a minReplicaCount of 0 counts as 1 there).
    if let Some(m) = min {
        if m > hpa_max {
            out.push((
                "spec.minReplicaCount".into(),
                "out-of-range",
                format!("MinReplicaCount={m} must be less than MaxReplicaCount={hpa_max}"),
                "minReplicaCount ≤ maxReplicaCount".into(),
            ));
        }
    }
    let bound_min = min.map_or(0, |m| m.max(1));
    if let Some(i) = idle {
        if i >= bound_min {
            out.push((
                "spec.idleReplicaCount".into(),
                "out-of-range",
                format!("IdleReplicaCount={i} must be less than MinReplicaCount={bound_min}"),
                "idleReplicaCount < minReplicaCount".into(),
            ));
        }
    }
    let (mut target_kind, mut target_name) = ("Deployment".to_string(), String::new());
    match spec.get("scaleTargetRef") {
        Some(Value::Object(r)) => {
            for k in r.keys() {
                if !["name", "apiVersion", "kind", "envSourceContainerName"].contains(&k.as_str()) {
                    out.push((
                        format!("spec.scaleTargetRef.{k}"),
                        "unknown-field",
                        format!("unknown field {k:?}"),
                        "name, apiVersion, kind, envSourceContainerName".into(),
                    ));
                }
            }
            match r.get("name").and_then(Value::as_str) {
                Some(n) if !n.is_empty() => target_name = n.to_string(),
                _ => out.push((
                    "spec.scaleTargetRef.name".into(),
                    "required",
                    "scaleTargetRef needs a name (minLength 1)".into(),
                    "name: vllm".into(),
                )),
            }
            if let Some(k) = r.get("kind").and_then(Value::as_str).filter(|k| !k.is_empty()) {
                target_kind = k.to_string();
            }
        }
        _ => out.push((
            "spec.scaleTargetRef".into(),
            "required",
            "a ScaledObject needs scaleTargetRef".into(),
            "scaleTargetRef: {name: vllm}".into(),
        )),
    }
    let triggers = triggers::parse(spec.get("triggers"), false, &mut out);
    let only_resource = !triggers.is_empty() && triggers.iter().all(|t| matches!(t.kind, Kind::Resource { .. }));
    if only_resource && min.unwrap_or(0) == 0 {
        out.push((
            "spec.minReplicaCount".into(),
            "out-of-range",
            "scaledobject has only cpu/memory triggers AND minReplica is 0 (scale to zero doesn't work in this case)".into(),
            "minReplicaCount: 1".into(),
        ));
    }
    let mut hpa_name = format!("keda-hpa-{name}");
    let mut behavior = Value::Null;
    if let Some(adv) = spec.get("advanced").filter(|v| !v.is_null()) {
        let Value::Object(a) = adv else {
            out.push((
                "spec.advanced".into(),
                "wrong-type",
                "advanced is a mapping".into(),
                "advanced: {horizontalPodAutoscalerConfig: {...}}".into(),
            ));
            return Err(out);
        };
        for k in a.keys() {
            match k.as_str() {
                "horizontalPodAutoscalerConfig" | "restoreToOriginalReplicaCount" => {}
                "scalingModifiers" => out.push((
                    "spec.advanced.scalingModifiers".into(),
                    "unsupported-value",
                    "scalingModifiers (a formula over the triggers' metrics) are not modelled by nodecast".into(),
                    "one trigger per metric, without a formula".into(),
                )),
                _ => out.push((
                    format!("spec.advanced.{k}"),
                    "unknown-field",
                    format!("unknown field {k:?}"),
                    "horizontalPodAutoscalerConfig, restoreToOriginalReplicaCount, scalingModifiers".into(),
                )),
            }
        }
        if let Some(Value::Object(h)) = a.get("horizontalPodAutoscalerConfig") {
            for k in h.keys().filter(|k| *k != "name" && *k != "behavior") {
                out.push((
                    format!("spec.advanced.horizontalPodAutoscalerConfig.{k}"),
                    "unknown-field",
                    format!("unknown field {k:?}"),
                    "name, behavior".into(),
                ));
            }
            if let Some(n) = h.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()) {
                hpa_name = n.to_string();
            }
            behavior = h.get("behavior").cloned().unwrap_or(Value::Null);
        }
    }
    if !name.is_empty() && hpa_name.len() > MAX_LABEL_VALUE {
        out.push((
            "spec.advanced.horizontalPodAutoscalerConfig.name".into(),
            "invalid-value",
            format!(
                "HPA name {hpa_name:?} derived from scaledobject is {} characters long; must be no more than {MAX_LABEL_VALUE} characters",
                hpa_name.len()
            ),
            "set spec.advanced.horizontalPodAutoscalerConfig.name to a shorter name".into(),
        ));
    }
    if let Some(f) = spec.get("fallback").filter(|v| !v.is_null()) {
        fallback(f, &triggers, &mut out);
    }
    if !out.is_empty() {
        return Err(out);
    }
    let metrics: Vec<Value> = triggers
        .iter()
        .enumerate()
        .map(|(i, t)| match &t.kind {
            Kind::External { target, value, .. } => {
                let q = triggers::quantity_text(*target);
                let target = if *value { json!({"type": "Value", "value": q}) } else { json!({"type": "AverageValue", "averageValue": q}) };
                json!({"type": "External", "external": {"metric": {"name": format!("s{i}-{}", t.metric)}, "target": target}})
            }
            Kind::Resource { resource, utilization: Some(u), .. } => {
                json!({"type": "Resource", "resource": {"name": resource, "target": {"type": "Utilization", "averageUtilization": u}}})
            }
            Kind::Resource { resource, average, .. } => {
                json!({"type": "Resource", "resource": {"name": resource, "target": {"type": "AverageValue", "averageValue": average}}})
            }
        })
        .collect();
    let mut hspec = json!({
        "scaleTargetRef": {"kind": target_kind, "name": target_name},
        "minReplicas": min.unwrap_or(0).max(1),
        "maxReplicas": hpa_max,
        "metrics": metrics,
    });
    if !behavior.is_null() {
        hspec["behavior"] = behavior;
    }
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": hpa_name, "namespace": namespace}, "spec": hspec});
    Ok(ObjectSpec { namespace, name, target_kind, target_name, min, max, idle, polling, cooldown, initial_cooldown, triggers, hpa })
}

/// `spec.fallback`: the CRD's bounds and CheckFallbackValid. A demand series never fails, so
/// the fallback replicas never apply in a simulation.
fn fallback(f: &Value, triggers: &[Trigger], out: &mut Vec<Problem>) {
    let Value::Object(o) = f else {
        out.push((
            "spec.fallback".into(),
            "wrong-type",
            "fallback is a mapping".into(),
            "fallback: {failureThreshold: 3, replicas: 2}".into(),
        ));
        return;
    };
    for k in ["failureThreshold", "replicas"] {
        match o.get(k).and_then(Value::as_i64) {
            Some(n) if n >= 0 && i32::try_from(n).is_ok() => {}
            Some(_) => out.push((
                format!("spec.fallback.{k}"),
                "out-of-range",
                format!("FailureThreshold & Replicas must both be greater than or equal to 0 ({k})"),
                "≥ 0".into(),
            )),
            None => out.push((format!("spec.fallback.{k}"), "required", format!("fallback needs {k}"), format!("{k}: 3"))),
        }
    }
    if let Some(b) = o.get("behavior").and_then(Value::as_str) {
        if !["static", "currentReplicas", "currentReplicasIfHigher", "currentReplicasIfLower"].contains(&b) {
            out.push((
                "spec.fallback.behavior".into(),
                "unsupported-value",
                format!("unsupported fallback behavior {b:?}"),
                "static, currentReplicas, currentReplicasIfHigher, currentReplicasIfLower".into(),
            ));
        }
    }
    if !triggers.iter().any(|t| matches!(t.kind, Kind::External { .. })) {
        out.push((
            "spec.fallback".into(),
            "invalid-value",
            "at least one trigger (that is not cpu or memory) has to have the `AverageValue` type for the fallback to be enabled".into(),
            "an external trigger".into(),
        ));
    }
}

/// Maps a path of the generated HPA to the ScaledObject field it came from.
pub fn hpa_path(path: &str) -> String {
    if let Some(rest) = path.strip_prefix("spec.metrics[") {
        let (i, _) = rest.split_once(']').unwrap_or((rest, ""));
        return format!("spec.triggers[{i}]");
    }
    if let Some(rest) = path.strip_prefix("spec.behavior") {
        return format!("spec.advanced.horizontalPodAutoscalerConfig.behavior{rest}");
    }
    match path {
        "spec.maxReplicas" => "spec.maxReplicaCount".into(),
        "spec.minReplicas" => "spec.minReplicaCount".into(),
        p if p.starts_with("spec.scaleTargetRef") => p.into(),
        _ => "spec".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn so(extra: Value) -> ObjectSpec {
        let mut d = json!({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "w"},
            "spec": {"scaleTargetRef": {"name": "w"}, "triggers": [{"type": "aws-sqs-queue", "metadata": {"queueLength": "10", "activationQueueLength": "2"}}]}});
        if let Value::Object(e) = extra {
            for (k, v) in e {
                d["spec"][k] = v;
            }
        }
        parse(&d).unwrap()
    }

    #[test]
    fn activation_from_zero_and_deactivation_after_cooldown() {
        let s = so(json!({}));
        assert_eq!(s.hpa["spec"]["minReplicas"], 1);
        assert_eq!(s.hpa["spec"]["maxReplicas"], 100);
        assert_eq!(s.hpa["spec"]["metrics"][0]["external"]["target"]["averageValue"], "10.000");
        let mut st = ObjectState::default();
        // At creation with no lastActiveTime: the initial cooldown (0) is not yet *before* now.
        assert_eq!(request_scale(&s, &mut st, false, 3, 0, 0), Action::CoolingDown);
        assert_eq!(request_scale(&s, &mut st, false, 3, 30, 0), Action::Deactivate(0));
        assert_eq!(request_scale(&s, &mut st, true, 0, 60, 0), Action::Activate(1));
        assert_eq!(request_scale(&s, &mut st, true, 4, 90, 0), Action::None);
        assert_eq!(request_scale(&s, &mut st, false, 4, 390, 0), Action::CoolingDown);
        assert_eq!(request_scale(&s, &mut st, false, 4, 391, 0), Action::Deactivate(0));
        assert!(is_active(&s, &[2.5]) && !is_active(&s, &[2.0]));
    }

    /// Scenarios distilled from KEDA v2.21.0's pkg/scaling/executor/scale_scaledobjects_test.go,
    /// named after its tests: no lastActiveTime and a creationTimestamp long past.
    #[test]
    fn keda_scale_scaledobjects_test_scenarios() {
        let long_ago = -1_000_000;
        let mut st = ObjectState::default();
        // TestScaleToMinReplicasWhenNotActive: min 0, 10 replicas, inactive → 0.
        assert_eq!(request_scale(&so(json!({"minReplicaCount": 0})), &mut st, false, 10, 0, long_ago), Action::Deactivate(0));
        // TestScaleToMinReplicasFromLowerInitialReplicaCount: min 5, 1 replica, inactive → 5.
        assert_eq!(request_scale(&so(json!({"minReplicaCount": 5})), &mut st, false, 1, 0, long_ago), Action::ResetToMin(5));
        // TestScaleFromMinReplicasWhenActive: min 0, 0 replicas, active → 1, lastActiveTime set.
        let mut st = ObjectState::default();
        assert_eq!(request_scale(&so(json!({"minReplicaCount": 0})), &mut st, true, 0, 7, long_ago), Action::Activate(1));
        assert_eq!(st.last_active, Some(7));
        // TestScaleToIdleReplicasWhenNotActive: idle 0, min 5, 10 replicas, inactive → 0.
        let idle = so(json!({"minReplicaCount": 5, "idleReplicaCount": 0}));
        assert_eq!(request_scale(&idle, &mut ObjectState::default(), false, 10, 0, long_ago), Action::Deactivate(0));
        // TestScaleFromIdleToMinReplicasWhenActive: idle 0, min 5, 0 replicas, active → 5.
        assert_eq!(request_scale(&idle, &mut ObjectState::default(), true, 0, 0, long_ago), Action::Activate(5));
    }

    #[test]
    fn idle_and_minimum_counts() {
        let s = so(json!({"minReplicaCount": 2, "idleReplicaCount": 0, "cooldownPeriod": 60}));
        let mut st = ObjectState::default();
        assert_eq!(request_scale(&s, &mut st, true, 0, 0, 0), Action::Activate(2));
        assert_eq!(request_scale(&s, &mut st, false, 2, 61, 0), Action::Deactivate(0));
        let s = so(json!({"minReplicaCount": 3}));
        assert_eq!(request_scale(&s, &mut ObjectState::default(), false, 1, 10, 0), Action::ResetToMin(3));
    }

    #[test]
    fn admission_errors_are_located() {
        let bad = json!({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "w"},
            "spec": {"scaleTargetRef": {}, "minReplicaCount": 5, "maxReplicaCount": 2, "idleReplicaCount": 7, "pollingInterval": 0,
                "triggers": [{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "50"}}]}});
        let e = parse(&bad).unwrap_err();
        let paths: Vec<&str> = e.iter().map(|p| p.0.as_str()).collect();
        for want in ["spec.pollingInterval", "spec.minReplicaCount", "spec.idleReplicaCount", "spec.scaleTargetRef.name"] {
            assert!(paths.contains(&want), "{want} in {paths:?}");
        }
        // idle 0 with minReplicaCount 0 passes KEDA's check (GetHPAMinReplicas counts 0 as 1).
        assert!(parse(
            &json!({"metadata": {"name": "w"}, "spec": {"scaleTargetRef": {"name": "w"}, "minReplicaCount": 0, "idleReplicaCount": 0,
            "triggers": [{"type": "prometheus", "metadata": {"threshold": "1"}}]}})
        )
        .is_ok());
        assert_eq!(hpa_path("spec.metrics[1].external.target.averageValue"), "spec.triggers[1]");
        assert_eq!(
            hpa_path("spec.behavior.scaleUp.policies[0].value"),
            "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.policies[0].value"
        );
    }
}
