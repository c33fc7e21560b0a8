//! EC2NodeClass `spec.kubelet` runtime checks KC-01..KC-09 (§6.4). They never fail the apply;
//! they set the EC2NodeClass `ValidationSucceeded=False` and block launches.
//!
//! KC-01 ("decodes strictly into the upstream kubelet `KubeletConfiguration`") is reproduced with
//! a table of the upstream `k8s.io/kubelet/config/v1beta1` fields and their Go types: unknown
//! fields (case-sensitive, as sigs.k8s.io/json matches them) and type mismatches are reported.
//! Go's decoder stops at the first type error; we report every one (more useful, same verdict).

use super::patterns as p;
use super::{get, Ctx, Layer};
use serde_json::{Map, Value};

/// Go type of a field, as far as JSON decoding cares.
#[derive(Clone, Copy)]
enum T {
    Bool,
    Str,
    I32,
    I64,
    U32,
    F64,
    /// `metav1.Duration`: a string parsed by `time.ParseDuration`.
    Dur,
    /// logs `TimeOrMetaDuration`: a duration string or integer nanoseconds.
    DurOrInt,
    /// `resource.Quantity`: a quantity string or a number.
    Quantity,
    Map(&'static T),
    List(&'static T),
    Obj(&'static str, &'static [(&'static str, T)]),
}

const WEBHOOK_AUTHN: &[(&str, T)] = &[("enabled", T::Bool), ("cacheTTL", T::Dur)];
const AUTHN: &[(&str, T)] = &[
    ("x509", T::Obj("v1beta1.KubeletX509Authentication", &[("clientCAFile", T::Str)])),
    ("webhook", T::Obj("v1beta1.KubeletWebhookAuthentication", WEBHOOK_AUTHN)),
    ("anonymous", T::Obj("v1beta1.KubeletAnonymousAuthentication", &[("enabled", T::Bool)])),
];
const AUTHZ: &[(&str, T)] = &[
    ("mode", T::Str),
    ("webhook", T::Obj("v1beta1.KubeletWebhookAuthorization", &[("cacheAuthorizedTTL", T::Dur), ("cacheUnauthorizedTTL", T::Dur)])),
];
const ROUTING: &[(&str, T)] = &[("splitStream", T::Bool), ("infoBufferSize", T::Quantity)];
const LOGGING: &[(&str, T)] = &[
    ("format", T::Str),
    ("flushFrequency", T::DurOrInt),
    ("verbosity", T::U32),
    ("vmodule", T::List(&T::Obj("v1.VModuleItem", &[("filePattern", T::Str), ("verbosity", T::U32)]))),
    ("options", T::Obj("v1.FormatOptions", &[("text", T::Obj("v1.TextOptions", ROUTING)), ("json", T::Obj("v1.JSONOptions", ROUTING))])),
];
const TAINT: &[(&str, T)] = &[("key", T::Str), ("value", T::Str), ("effect", T::Str), ("timeAdded", T::Str)];

/// Top-level fields of `KubeletConfiguration` (plus the inline TypeMeta).
const FIELDS: &[(&str, T)] = &[
    ("kind", T::Str),
    ("apiVersion", T::Str),
    ("enableServer", T::Bool),
    ("staticPodPath", T::Str),
    ("podLogsDir", T::Str),
    ("syncFrequency", T::Dur),
    ("fileCheckFrequency", T::Dur),
    ("httpCheckFrequency", T::Dur),
    ("staticPodURL", T::Str),
    ("staticPodURLHeader", T::Map(&T::List(&T::Str))),
    ("address", T::Str),
    ("port", T::I32),
    ("readOnlyPort", T::I32),
    ("tlsCertFile", T::Str),
    ("tlsPrivateKeyFile", T::Str),
    ("tlsCipherSuites", T::List(&T::Str)),
    ("tlsCurvePreferences", T::List(&T::I32)),
    ("tlsMinVersion", T::Str),
    ("rotateCertificates", T::Bool),
    ("serverTLSBootstrap", T::Bool),
    ("authentication", T::Obj("v1beta1.KubeletAuthentication", AUTHN)),
    ("authorization", T::Obj("v1beta1.KubeletAuthorization", AUTHZ)),
    ("registryPullQPS", T::I32),
    ("registryBurst", T::I32),
    ("imagePullCredentialsVerificationPolicy", T::Str),
    ("preloadedImagesVerificationAllowlist", T::List(&T::Str)),
    ("eventRecordQPS", T::I32),
    ("eventBurst", T::I32),
    ("enableDebuggingHandlers", T::Bool),
    ("enableContentionProfiling", T::Bool),
    ("healthzPort", T::I32),
    ("healthzBindAddress", T::Str),
    ("oomScoreAdj", T::I32),
    ("clusterDomain", T::Str),
    ("clusterDNS", T::List(&T::Str)),
    ("streamingConnectionIdleTimeout", T::Dur),
    ("nodeStatusUpdateFrequency", T::Dur),
    ("nodeStatusReportFrequency", T::Dur),
    ("nodeLeaseDurationSeconds", T::I32),
    ("imageMinimumGCAge", T::Dur),
    ("imageMaximumGCAge", T::Dur),
    ("imageGCHighThresholdPercent", T::I32),
    ("imageGCLowThresholdPercent", T::I32),
    ("volumeStatsAggPeriod", T::Dur),
    ("kubeletCgroups", T::Str),
    ("systemCgroups", T::Str),
    ("cgroupRoot", T::Str),
    ("cgroupsPerQOS", T::Bool),
    ("cgroupDriver", T::Str),
    ("cpuManagerPolicy", T::Str),
    ("singleProcessOOMKill", T::Bool),
    ("cpuManagerPolicyOptions", T::Map(&T::Str)),
    ("cpuManagerReconcilePeriod", T::Dur),
    ("memoryManagerPolicy", T::Str),
    ("topologyManagerPolicy", T::Str),
    ("topologyManagerScope", T::Str),
    ("topologyManagerPolicyOptions", T::Map(&T::Str)),
    ("qosReserved", T::Map(&T::Str)),
    ("runtimeRequestTimeout", T::Dur),
    ("hairpinMode", T::Str),
    ("maxPods", T::I32),
    ("podCIDR", T::Str),
    ("podPidsLimit", T::I64),
    ("resolvConf", T::Str),
    ("runOnce", T::Bool),
    ("cpuCFSQuota", T::Bool),
    ("cpuCFSQuotaPeriod", T::Dur),
    ("nodeStatusMaxImages", T::I32),
    ("maxOpenFiles", T::I64),
    ("contentType", T::Str),
    ("kubeAPIQPS", T::I32),
    ("kubeAPIBurst", T::I32),
    ("serializeImagePulls", T::Bool),
    ("maxParallelImagePulls", T::I32),
    ("evictionHard", T::Map(&T::Str)),
    ("evictionSoft", T::Map(&T::Str)),
    ("evictionSoftGracePeriod", T::Map(&T::Str)),
    ("evictionPressureTransitionPeriod", T::Dur),
    ("evictionMaxPodGracePeriod", T::I32),
    ("evictionMinimumReclaim", T::Map(&T::Str)),
    ("mergeDefaultEvictionSettings", T::Bool),
    ("podsPerCore", T::I32),
    ("enableControllerAttachDetach", T::Bool),
    ("protectKernelDefaults", T::Bool),
    ("makeIPTablesUtilChains", T::Bool),
    ("iptablesMasqueradeBit", T::I32),
    ("iptablesDropBit", T::I32),
    ("featureGates", T::Map(&T::Bool)),
    ("failSwapOn", T::Bool),
    ("memorySwap", T::Obj("v1beta1.MemorySwapConfiguration", &[("swapBehavior", T::Str)])),
    ("containerLogMaxSize", T::Str),
    ("containerLogMaxFiles", T::I32),
    ("containerLogMaxWorkers", T::I32),
    ("containerLogMonitorInterval", T::Dur),
    ("configMapAndSecretChangeDetectionStrategy", T::Str),
    ("systemReserved", T::Map(&T::Str)),
    ("kubeReserved", T::Map(&T::Str)),
    ("reservedSystemCPUs", T::Str),
    ("showHiddenMetricsForVersion", T::Str),
    ("systemReservedCgroup", T::Str),
    ("kubeReservedCgroup", T::Str),
    ("enforceNodeAllocatable", T::List(&T::Str)),
    ("allowedUnsafeSysctls", T::List(&T::Str)),
    ("volumePluginDir", T::Str),
    ("providerID", T::Str),
    ("kernelMemcgNotification", T::Bool),
    ("logging", T::Obj("v1.LoggingConfiguration", LOGGING)),
    ("enableSystemLogHandler", T::Bool),
    ("enableSystemLogQuery", T::Bool),
    ("shutdownGracePeriod", T::Dur),
    ("shutdownGracePeriodCriticalPods", T::Dur),
    (
        "shutdownGracePeriodByPodPriority",
        T::List(&T::Obj("v1beta1.ShutdownGracePeriodByPodPriority", &[("priority", T::I32), ("shutdownGracePeriodSeconds", T::I64)])),
    ),
    ("crashLoopBackOff", T::Obj("v1beta1.CrashLoopBackOffConfig", &[("maxContainerRestartPeriod", T::Dur)])),
    ("reservedMemory", T::List(&T::Obj("v1beta1.MemoryReservation", &[("numaNode", T::I32), ("limits", T::Map(&T::Quantity))]))),
    ("enableProfilingHandler", T::Bool),
    ("enableDebugFlagsHandler", T::Bool),
    ("seccompDefault", T::Bool),
    ("memoryThrottlingFactor", T::F64),
    ("registerWithTaints", T::List(&T::Obj("v1.Taint", TAINT))),
    ("registerNode", T::Bool),
    ("tracing", T::Obj("v1.TracingConfiguration", &[("endpoint", T::Str), ("samplingRatePerMillion", T::I32)])),
    ("localStorageCapacityIsolation", T::Bool),
    ("containerRuntimeEndpoint", T::Str),
    ("imageServiceEndpoint", T::Str),
    ("failCgroupV1", T::Bool),
    ("userNamespaces", T::Obj("v1beta1.UserNamespaces", &[("idsPerPod", T::I64)])),
];

const SIGNALS: [&str; 6] =
    ["memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"];

fn go_type(t: T) -> String {
    match t {
        T::Bool => "bool".into(),
        T::Str => "string".into(),
        T::I32 => "int32".into(),
        T::I64 => "int64".into(),
        T::U32 => "uint32".into(),
        T::F64 => "float64".into(),
        T::Dur => "v1.Duration".into(),
        T::DurOrInt => "v1.TimeOrMetaDuration".into(),
        T::Quantity => "resource.Quantity".into(),
        T::Map(inner) => format!("map[string]{}", go_type(*inner)),
        T::List(inner) => format!("[]{}", go_type(*inner)),
        T::Obj(name, _) => name.into(),
    }
}

fn json_kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

fn runtime(cx: &mut Ctx, path: &str, msg: String, expected: &str) {
    cx.push(Layer::NodeClassRuntime, "invalid-kubelet", path, msg, expected);
}

/// KC-01 for one value: `path` locates it for the user, `go` is the decoder's dotted field path.
fn decode(cx: &mut Ctx, v: &Value, t: T, path: &str, go: &str) {
    let int_range = |lo: i128, hi: i128| super::as_int(v).is_some_and(|i| (lo..=hi).contains(&i));
    let ok = match (t, v) {
        (_, Value::Null) => true, // Go leaves the field unset
        (T::Bool, Value::Bool(_)) | (T::Str, Value::String(_)) | (T::F64, Value::Number(_)) => true,
        (T::I32, Value::Number(_)) => int_range(i128::from(i32::MIN), i128::from(i32::MAX)),
        (T::I64, Value::Number(_)) => int_range(i128::from(i64::MIN), i128::from(i64::MAX)),
        (T::U32, Value::Number(_)) => int_range(0, i128::from(u32::MAX)),
        (T::Dur | T::DurOrInt, Value::String(s)) => {
            if p::go_duration_nanos(s).is_none() {
                let msg = format!("spec.kubelet: time: invalid duration {} (KC-01)", super::q(s));
                runtime(cx, path, msg, "a Go duration such as 30s, 5m or 1h30m");
            }
            true
        }
        (T::DurOrInt, Value::Number(_)) => int_range(i128::from(i64::MIN), i128::from(i64::MAX)),
        (T::Quantity, Value::Number(_)) => true,
        (T::Quantity, Value::String(s)) => {
            if !p::quantity(s) {
                let msg =
                    "spec.kubelet: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (KC-01)"
                        .to_string();
                runtime(cx, path, msg, "a quantity such as 1Gi or 500m");
            }
            true
        }
        (T::Map(inner), Value::Object(m)) => {
            for (k, x) in m {
                decode(cx, x, *inner, &format!("{path}[{k}]"), go);
            }
            true
        }
        (T::List(inner), Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                decode(cx, x, *inner, &format!("{path}[{i}]"), &format!("{go}[{i}]"));
            }
            true
        }
        (T::Obj(_, fields), Value::Object(m)) => {
            decode_fields(cx, m, fields, path, go);
            true
        }
        _ => false,
    };
    if !ok {
        let go_struct = if go.is_empty() { "KubeletConfiguration".to_string() } else { format!("KubeletConfiguration.{go}") };
        // Go names the literal only when the target is numeric ("number 1.5" into int32).
        let kind = match (t, v) {
            (T::I32 | T::I64 | T::U32 | T::DurOrInt, _) => json_kind(v),
            (_, Value::Number(_)) => "number".to_string(),
            _ => json_kind(v),
        };
        let msg = if matches!(t, T::Dur) {
            format!("spec.kubelet: json: cannot unmarshal {kind} into Go value of type string (KC-01)")
        } else {
            format!("spec.kubelet: json: cannot unmarshal {kind} into Go struct field {go_struct} of type {} (KC-01)", go_type(t))
        };
        runtime(cx, path, msg, &format!("a value of Go type {}", go_type(t)));
    }
}

fn decode_fields(cx: &mut Ctx, m: &Map<String, Value>, fields: &[(&str, T)], path: &str, go: &str) {
    for (k, x) in m {
        let fpath = format!("{path}.{k}");
        let fgo = if go.is_empty() { k.clone() } else { format!("{go}.{k}") };
        match fields.iter().find(|(n, _)| n == k) {
            Some((_, t)) => decode(cx, x, *t, &fpath, &fgo),
            None => {
                let msg = format!("spec.kubelet: unknown field \"{fgo}\" (KC-01)");
                runtime(cx, &fpath, msg, "a field of the upstream KubeletConfiguration (names are case-sensitive)");
            }
        }
    }
}

pub(super) fn validate(cx: &mut Ctx, k: &Map<String, Value>) {
    const BASE: &str = "spec.kubelet";
    // KC-01; a string maxPods is a CEL expression, type-checked as an int placeholder.
    let mut placeholder;
    let mut decoded = k;
    if matches!(k.get("maxPods"), Some(Value::String(_))) {
        placeholder = k.clone();
        placeholder.insert("maxPods".into(), Value::from(0));
        decoded = &placeholder;
    }
    decode_fields(cx, decoded, FIELDS, BASE, "");

    // KC-02
    if get(k, "registerWithTaints").is_some() {
        let msg = "spec.kubelet.registerWithTaints: can't be set, Karpenter sets it from the NodeClaim's taints so the node registers unschedulable until it's ready (KC-02)".to_string();
        runtime(cx, &format!("{BASE}.registerWithTaints"), msg, "no registerWithTaints; use the NodePool's taints/startupTaints");
    }

    // KC-03..05
    for field in ["evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim"] {
        let Some(Value::Object(m)) = get(k, field) else {
            continue;
        };
        for (key, v) in m {
            let path = format!("{BASE}.{field}[{key}]");
            if !SIGNALS.contains(&key.as_str()) {
                let msg =
                    format!("spec.kubelet.{field}: \"{key}\" isn't a valid eviction signal, must be one of {} (KC-03)", SIGNALS.join(", "));
                runtime(cx, &path, msg, &format!("one of {}", SIGNALS.join(", ")));
            }
            let Some(s) = v.as_str() else { continue };
            if field == "evictionSoftGracePeriod" {
                match p::go_duration_nanos(s) {
                    None => runtime(
                        cx,
                        &path,
                        format!("spec.kubelet.{field}[{key}]: \"{s}\" must be a duration (KC-05)"),
                        "a Go duration such as 30s or 1m30s",
                    ),
                    Some(n) if n < 0 => runtime(
                        cx,
                        &path,
                        format!("spec.kubelet.{field}[{key}]: \"{s}\" can't be a negative duration (KC-05)"),
                        "a non-negative duration",
                    ),
                    Some(_) => {}
                }
            } else if let Some(e) = threshold_error(s) {
                runtime(
                    cx,
                    &path,
                    format!("spec.kubelet.{field}[{key}]: \"{s}\" {e} (KC-04)"),
                    "a percentage from 0% to 100% or a non-negative quantity such as 100Mi",
                );
            }
        }
    }

    // KC-06: each key looked up in the other map (not a scan of its keys), so wide maps stay linear.
    let map = |f: &str| match get(k, f) {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    };
    let (soft, grace) = (map("evictionSoft"), map("evictionSoftGracePeriod"));
    let missing = |a: Option<&'_ serde_json::Map<String, Value>>, b: Option<&'_ serde_json::Map<String, Value>>| -> Vec<String> {
        a.into_iter().flat_map(|m| m.keys()).filter(|key| !b.is_some_and(|b| b.contains_key(*key))).cloned().collect()
    };
    for s in missing(soft, grace) {
        let msg = format!("spec.kubelet.evictionSoft[{s}]: has no matching evictionSoftGracePeriod (KC-06)");
        runtime(cx, &format!("{BASE}.evictionSoft[{s}]"), msg, "the same signals in evictionSoft and evictionSoftGracePeriod");
    }
    for g in missing(grace, soft) {
        let msg = format!("spec.kubelet.evictionSoftGracePeriod[{g}]: has no matching evictionSoft (KC-06)");
        runtime(cx, &format!("{BASE}.evictionSoftGracePeriod[{g}]"), msg, "the same signals in evictionSoft and evictionSoftGracePeriod");
    }

    // KC-07
    for field in ["kubeReserved", "systemReserved"] {
        let Some(Value::Object(m)) = get(k, field) else {
            continue;
        };
        for (key, v) in m {
            let path = format!("{BASE}.{field}[{key}]");
            if !["cpu", "memory", "ephemeral-storage", "pid"].contains(&key.as_str()) {
                let msg = format!("spec.kubelet.{field}: \"{key}\" isn't a reservable resource, must be one of cpu, memory, ephemeral-storage, pid (KC-07)");
                runtime(cx, &path, msg, "one of cpu, memory, ephemeral-storage, pid");
            }
            if let Some(s) = v.as_str().filter(|s| s.starts_with('-')) {
                let msg = format!("spec.kubelet.{field}[{key}]: \"{s}\" can't be a negative resource quantity (KC-07)");
                runtime(cx, &path, msg, "a non-negative quantity such as 100m or 1Gi");
            }
        }
    }

    // KC-08
    let int_of = |f: &str| get(k, f).and_then(super::as_int);
    let (high, low) = (int_of("imageGCHighThresholdPercent"), int_of("imageGCLowThresholdPercent"));
    for (field, v) in [("imageGCHighThresholdPercent", high), ("imageGCLowThresholdPercent", low)] {
        if let Some(v) = v.filter(|v| !(0..=100).contains(v)) {
            runtime(
                cx,
                &format!("{BASE}.{field}"),
                format!("spec.kubelet.{field}: {v} must be between 0 and 100 (KC-08)"),
                "an integer from 0 to 100",
            );
        }
    }
    if let (Some(h), Some(l)) = (high, low) {
        if h <= l {
            let msg =
                format!("spec.kubelet: imageGCHighThresholdPercent ({h}) must be greater than imageGCLowThresholdPercent ({l}) (KC-08)");
            runtime(cx, &format!("{BASE}.imageGCHighThresholdPercent"), msg, "imageGCHighThresholdPercent > imageGCLowThresholdPercent");
        }
    }

    // KC-09 (a string maxPods is an expression and is not checked here)
    for field in ["podsPerCore", "evictionMaxPodGracePeriod", "maxPods"] {
        if let Some(v) = int_of(field).filter(|v| *v < 0) {
            runtime(cx, &format!("{BASE}.{field}"), format!("spec.kubelet.{field}: {v} can't be negative (KC-09)"), "an integer >= 0");
        }
    }
}

/// KC-04: `N%` with 0 <= N <= 100, or a non-negative quantity.
fn threshold_error(s: &str) -> Option<&'static str> {
    if let Some(pct) = s.strip_suffix('%') {
        // Go's ParseFloat; NaN compares false both ways and is accepted, as upstream.
        return match pct.parse::<f64>() {
            Ok(f) if f.is_nan() || (0.0..=100.0).contains(&f) => None,
            _ => Some("must be a percentage or a resource quantity"),
        };
    }
    if !p::quantity(s) {
        return Some("must be a percentage or a resource quantity");
    }
    let negative = s.starts_with('-') && s.bytes().take_while(|c| !c.is_ascii_alphabetic()).any(|c| (b'1'..=b'9').contains(&c));
    negative.then_some("can't be a negative resource quantity")
}
