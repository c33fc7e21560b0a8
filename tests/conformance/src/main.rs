//! Conformance runner: `nodecast-conformance PATH...` runs every scenario file (or folder of
//! them, in file-name order) through nodecast and compares the decision with `expect`
//! (FORMAT.md §8). Prints one line per scenario and ends with `N passed, N failed`.
//!
//! Reason codes are compared: nodecast reports them (FORMAT.md §7).
//!
//! `nodecast-conformance --oracle PATH...` instead prints nodecast's decisions and resolved
//! catalogs as JSON lines for the differential harness in `oracle/` (see `oracle.rs`).

mod oracle;

use nodecast::api::{Decision, Plan};
use nodecast::internal::model::Model;
use nodecast::{Input, Request};
use nodecast::{MinValuesPolicy, PreferencePolicy, Settings};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

enum Outcome {
    Pass,
    Fail(String),
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let oracle_mode = args.first().is_some_and(|a| a == "--oracle");
    if oracle_mode {
        args.remove(0);
    }
    if args.is_empty() {
        eprintln!("usage: nodecast-conformance PATH... (scenario files or folders)");
        return ExitCode::from(2);
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for a in &args {
        let p = Path::new(a);
        if p.is_dir() {
            let mut v: Vec<PathBuf> = match std::fs::read_dir(p) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                    .collect(),
                Err(e) => {
                    eprintln!("{a}: {e}");
                    return ExitCode::from(2);
                }
            };
            v.sort();
            files.extend(v);
        } else {
            files.push(p.to_path_buf());
        }
    }
    if oracle_mode {
        return oracle_main(&files);
    }
    let (mut passed, mut failed) = (0, 0);
    for f in &files {
        for (name, outcome) in run_file(f) {
            match outcome {
                Outcome::Pass => {
                    passed += 1;
                    println!("PASS {name}");
                }
                Outcome::Fail(why) => {
                    failed += 1;
                    println!("FAIL {name}: {why}");
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn oracle_main(files: &[PathBuf]) -> ExitCode {
    use std::io::Write;
    let mut catalogs = oracle::Catalogs::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for f in files {
        let stem = f.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let doc: Value =
            match std::fs::read_to_string(f).map_err(|e| e.to_string()).and_then(|t| serde_saphyr::from_str(&t).map_err(|e| e.to_string()))
            {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("{}: {e}", f.display());
                    return ExitCode::from(2);
                }
            };
        let list = match doc {
            Value::Array(list) => list,
            s => vec![s],
        };
        for s in &list {
            let name = s.get("name").and_then(Value::as_str).unwrap_or(&stem).to_string();
            for line in oracle::run(s, &name, f, &mut catalogs) {
                if writeln!(out, "{line}").is_err() {
                    return ExitCode::from(2);
                }
            }
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// A file holds one scenario, or (like examples/expectations.yaml) a list of them.
fn run_file(path: &Path) -> Vec<(String, Outcome)> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return vec![(stem, Outcome::Fail(format!("cannot read: {e}")))],
    };
    let doc: Value = match serde_saphyr::from_str(&text) {
        Ok(v) => v,
        Err(e) => return vec![(stem, Outcome::Fail(format!("invalid scenario YAML: {e}")))],
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    match doc {
        Value::Array(list) => {
            list.iter().map(|s| (s.get("name").and_then(Value::as_str).unwrap_or(&stem).to_string(), run_scenario(s, dir))).collect()
        }
        s => vec![(stem, run_scenario(&s, dir))],
    }
}

pub(crate) fn request(s: &Value, dir: &Path) -> Result<Request, String> {
    let mut settings = Settings::default();
    if let Some(st) = s.get("settings") {
        if st.get("minValuesPolicy").and_then(Value::as_str) == Some("BestEffort") {
            settings.min_values_policy = MinValuesPolicy::BestEffort;
        }
        if st.get("preferencePolicy").and_then(Value::as_str) == Some("Ignore") {
            settings.preference_policy = PreferencePolicy::Ignore;
        }
        if let Some(on) = st.get("spotToSpotConsolidation").and_then(Value::as_bool) {
            settings.feature_gates.spot_to_spot_consolidation = on;
        }
        // Karpenter's own flag spelling, as `nodecast consolidate --feature-gates` takes it, or a
        // mapping gate -> bool (what oracle/suite writes from Karpenter's parsed options).
        match st.get("featureGates") {
            Some(Value::String(gates)) => {
                settings.feature_gates.apply(gates).map_err(|e| format!("settings.featureGates: {e}"))?;
            }
            Some(Value::Object(gates)) => {
                let mut flag = Vec::new();
                for (k, v) in gates {
                    match v.as_bool() {
                        Some(v) => flag.push(format!("{k}={v}")),
                        None => return Err(format!("settings.featureGates.{k}: expected true or false, got {v}")),
                    }
                }
                settings.feature_gates.apply(&flag.join(",")).map_err(|e| format!("settings.featureGates: {e}"))?;
            }
            Some(other) => return Err(format!("settings.featureGates: expected a string or a mapping, got {other}")),
            None => {}
        }
        if let Some(on) = st.get("ignoreDraRequests").and_then(Value::as_bool) {
            settings.ignore_dra_requests = on;
        }
        // The AWS provider's `--aws-feature-gates` (DRANVIDIAGPU, DRAEFA: the devices a new node
        // offers to the DRA allocator), as the flag string or a mapping gate -> bool.
        match st.get("awsFeatureGates") {
            Some(Value::String(gates)) => {
                settings.aws_feature_gates.apply(gates).map_err(|e| format!("settings.awsFeatureGates: {e}"))?;
            }
            Some(Value::Object(gates)) => {
                for (k, v) in gates {
                    let v = v.as_bool().ok_or_else(|| format!("settings.awsFeatureGates.{k}: expected true or false, got {v}"))?;
                    settings.aws_feature_gates.apply(&format!("{k}={v}")).map_err(|e| format!("settings.awsFeatureGates: {e}"))?;
                }
            }
            Some(other) => return Err(format!("settings.awsFeatureGates: expected a string or a mapping, got {other}")),
            None => {}
        }
        // Karpenter's MaxInstanceTypes (600; Karpenter's scheduling suite sets 60).
        if let Some(n) = st.get("maxInstanceTypes") {
            settings.max_instance_types =
                n.as_u64().filter(|&n| n >= 1).ok_or_else(|| format!("settings.maxInstanceTypes: expected a positive integer, got {n}"))?
                    as usize;
        }
        // The provider's repair policies and Karpenter's --scheduler-config, as the core's
        // Settings spell them (the core validates the values).
        if let Some(v) = st.get("repairPolicies") {
            settings.repair_policies = Some(serde_json::from_value(v.clone()).map_err(|e| format!("settings.repairPolicies: {e}"))?);
        }
        if let Some(v) = st.get("schedulerConfig") {
            settings.scheduler_config = Some(serde_json::from_value(v.clone()).map_err(|e| format!("settings.schedulerConfig: {e}"))?);
        }
        // Karpenter's --legacy-node-repair (the core refuses it with the NodeRepair gate on).
        if let Some(v) = st.get("legacyNodeRepair") {
            settings.legacy_node_repair =
                v.as_bool().ok_or_else(|| format!("settings.legacyNodeRepair: expected true or false, got {v}"))?;
        }
        // A setting the runner does not know would be silently ignored: refuse it instead.
        if let Some(map) = st.as_object() {
            let known = [
                "minValuesPolicy",
                "preferencePolicy",
                "spotToSpotConsolidation",
                "featureGates",
                "ignoreDraRequests",
                "awsFeatureGates",
                "maxInstanceTypes",
                "repairPolicies",
                "schedulerConfig",
                "legacyNodeRepair",
            ];
            if let Some(k) = map.keys().find(|k| !known.contains(&k.as_str())) {
                return Err(format!("settings: unknown key {k:?} (known: {})", known.join(", ")));
            }
        }
    }
    // `objects` (FORMAT.md) or `files` (examples/expectations.yaml: paths next to the file).
    let mut inputs = Vec::new();
    if let Some(text) = s.get("objects").and_then(Value::as_str) {
        inputs.push(Input { name: Some("objects".into()), text: text.to_string() });
    }
    for f in strs(s.get("files").unwrap_or(&Value::Null)) {
        let path = dir.join(&f);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        inputs.push(Input { name: Some(f), text });
    }
    Ok(Request {
        inputs,
        catalog: s.get("catalog").cloned(),
        settings,
        now: s.get("clock").and_then(|c| c.get("now")).and_then(Value::as_str).map(str::to_string),
        ..Default::default()
    })
}

fn run_scenario(s: &Value, dir: &Path) -> Outcome {
    let kind = s.get("kind").and_then(Value::as_str).unwrap_or("");
    let req = match request(s, dir) {
        Ok(r) => r,
        Err(e) => return Outcome::Fail(e),
    };
    match kind {
        "provision" => {
            let answer = nodecast::plan(&req);
            let plan = match answer.outcome {
                nodecast::Outcome::Success(p) => p,
                nodecast::Outcome::Failure { errors } => {
                    return Outcome::Fail(format!("plan failed: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))
                }
            };
            let model = match nodecast::internal::load::model(&req.sources()) {
                Ok((m, _)) => m,
                Err(e) => return Outcome::Fail(format!("model failed: {e:?}")),
            };
            match check_provision(s.get("expect").unwrap_or(&Value::Null), &plan, &model) {
                Ok(()) => Outcome::Pass,
                Err(e) => Outcome::Fail(e),
            }
        }
        "disrupt" => {
            let answer = nodecast::consolidate(&req);
            match answer.outcome {
                nodecast::Outcome::Success(d) => match check_disrupt(s.get("expect").unwrap_or(&Value::Null), &d) {
                    Ok(()) => Outcome::Pass,
                    Err(e) => Outcome::Fail(e),
                },
                nodecast::Outcome::Failure { errors } => {
                    Outcome::Fail(format!("consolidate failed: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))
                }
            }
        }
        "cluster-autoscaler" => match nodecast::json::plan_node_groups(&req).outcome {
            nodecast::Outcome::Success(p) => match check_cluster_autoscaler(s.get("expect").unwrap_or(&Value::Null), &p) {
                Ok(()) => Outcome::Pass,
                Err(e) => Outcome::Fail(e),
            },
            nodecast::Outcome::Failure { errors } => {
                Outcome::Fail(format!("plan failed: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))
            }
        },
        "cluster-autoscaler-scale-down" => match nodecast::json::scale_down_node_groups(&req).outcome {
            nodecast::Outcome::Success(d) => match check_scale_down(s.get("expect").unwrap_or(&Value::Null), &d) {
                Ok(()) => Outcome::Pass,
                Err(e) => Outcome::Fail(e),
            },
            nodecast::Outcome::Failure { errors } => {
                Outcome::Fail(format!("scale-down failed: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))
            }
        },
        other => Outcome::Fail(format!("unknown scenario kind {other:?}")),
    }
}

/// A Cluster Autoscaler scenario's `expect`: `scaleUps` (in loop order: `nodeGroup`, `nodes`,
/// `pods` as a count, `podNames` as short names in any order, `decidedBy`, `tiedWith`),
/// `newNodes` per node group and the `unschedulable` count.
fn check_cluster_autoscaler(e: &Value, p: &nodecast::cluster_autoscaler::NodeGroupPlan) -> Result<(), String> {
    let known = ["scaleUps", "newNodes", "unschedulable"];
    if let Some(k) = e.as_object().and_then(|m| m.keys().find(|k| !known.contains(&k.as_str()))) {
        return Err(format!("expect: unknown key {k:?} (known: {})", known.join(", ")));
    }
    if let Some(list) = e.get("scaleUps").and_then(Value::as_array) {
        if list.len() != p.scale_ups.len() {
            let got: Vec<String> = p.scale_ups.iter().map(|s| format!("{} +{}", s.node_group, s.nodes)).collect();
            return Err(format!("expected {} scale-ups, got {} ({})", list.len(), p.scale_ups.len(), got.join(", ")));
        }
        for (i, (want, got)) in list.iter().zip(&p.scale_ups).enumerate() {
            if let Some(g) = want.get("nodeGroup").and_then(Value::as_str) {
                if got.node_group != g {
                    return Err(format!("scale-up {}: expected node group {g}, got {}", i + 1, got.node_group));
                }
            }
            if let Some(n) = want.get("nodes") {
                check_count(n, got.nodes as usize, &format!("scale-up {} nodes", i + 1))?;
            }
            if let Some(n) = want.get("pods") {
                check_count(n, got.pods.len(), &format!("scale-up {} pods", i + 1))?;
            }
            if let Some(names) = want.get("podNames") {
                let mut w = strs(names);
                let mut g: Vec<String> = got.pods.iter().map(|p| short(p).to_string()).collect();
                w.sort();
                g.sort();
                if w != g {
                    return Err(format!("scale-up {}: expected pods {w:?}, got {g:?}", i + 1));
                }
            }
            if let Some(d) = want.get("decidedBy").and_then(Value::as_str) {
                if got.decided_by != d {
                    return Err(format!("scale-up {}: expected decidedBy {d}, got {}", i + 1, got.decided_by));
                }
            }
            if let Some(t) = want.get("tiedWith") {
                if strs(t) != got.tied_with {
                    return Err(format!("scale-up {}: expected tiedWith {:?}, got {:?}", i + 1, strs(t), got.tied_with));
                }
            }
        }
    }
    if let Some(by) = e.get("newNodes").and_then(Value::as_object) {
        for (g, n) in by {
            let got = p.node_groups.iter().find(|x| &x.name == g).ok_or_else(|| format!("no node group {g}"))?;
            check_count(n, got.new_nodes as usize, &format!("new nodes of {g}"))?;
        }
    }
    if let Some(n) = e.get("unschedulable") {
        check_count(n, p.unschedulable.len(), "unschedulable pods")?;
    }
    Ok(())
}

/// A Cluster Autoscaler scale-down scenario's `expect`: `removed` (a count of `remove`
/// verdicts) and `nodes`, by node name: `verdict`, `code`, `movesTo` (the nodes its pods go to,
/// in any order).
fn check_scale_down(e: &Value, d: &nodecast::cluster_autoscaler::NodeGroupScaleDown) -> Result<(), String> {
    let known = ["removed", "nodes"];
    if let Some(k) = e.as_object().and_then(|m| m.keys().find(|k| !known.contains(&k.as_str()))) {
        return Err(format!("expect: unknown key {k:?} (known: {})", known.join(", ")));
    }
    if let Some(n) = e.get("removed") {
        let got = d.nodes.iter().filter(|x| x.verdict == nodecast::cluster_autoscaler::ScaleDownVerdict::Remove).count();
        check_count(n, got, "removed nodes")?;
    }
    if let Some(by) = e.get("nodes").and_then(Value::as_object) {
        for (name, want) in by {
            let got = d.nodes.iter().find(|x| &x.name == name).ok_or_else(|| format!("no node {name} in the answer"))?;
            let json = serde_json::to_value(got).map_err(|e| e.to_string())?;
            let text = |k: &str| json.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            let known = ["verdict", "code", "movesTo"];
            if let Some(k) = want.as_object().and_then(|m| m.keys().find(|k| !known.contains(&k.as_str()))) {
                return Err(format!("expect.nodes.{name}: unknown key {k:?} (known: {})", known.join(", ")));
            }
            if let Some(v) = want.get("verdict").and_then(Value::as_str) {
                if text("verdict") != v {
                    return Err(format!("node {name}: expected verdict {v}, got {} ({})", text("verdict"), got.message));
                }
            }
            if let Some(c) = want.get("code").and_then(Value::as_str) {
                if text("code") != c {
                    return Err(format!("node {name}: expected code {c}, got {} ({})", text("code"), got.message));
                }
            }
            if let Some(to) = want.get("movesTo") {
                let mut w = strs(to);
                let mut g: Vec<String> = got.moves.iter().map(|m| m.to.clone()).collect();
                w.sort();
                g.sort();
                if w != g {
                    return Err(format!("node {name}: expected its pods to move to {w:?}, got {g:?}"));
                }
            }
        }
    }
    Ok(())
}

/// Where a pod ended up.
struct Spot {
    scheduled: bool,
    node: String,
    existing: bool,
    instance_type: Option<String>,
    capacity_type: Option<String>,
    zone: Option<String>,
    node_pool: Option<String>,
    labels: BTreeMap<String, String>,
    reason: Option<String>,
}

fn short(pod: &str) -> &str {
    pod.rsplit('/').next().unwrap_or(pod)
}

fn spots(plan: &Plan, m: &Model) -> HashMap<String, Spot> {
    let mut out = HashMap::new();
    let node_labels = |name: &str| -> BTreeMap<String, String> {
        m.nodes
            .iter()
            .find(|n| n.name == name)
            .map(|n| n.labels.iter().map(|(k, v)| (m.interner.str(k).to_string(), m.interner.str(v).to_string())).collect())
            .unwrap_or_default()
    };
    for c in &plan.node_claims {
        for p in &c.pods {
            out.insert(
                short(p).to_string(),
                Spot {
                    scheduled: true,
                    node: c.name.clone(),
                    existing: false,
                    instance_type: c.instance_type.clone(),
                    capacity_type: c.capacity_type.clone(),
                    zone: c.zone.clone(),
                    node_pool: Some(c.node_pool.clone()),
                    labels: c.labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    reason: None,
                },
            );
        }
    }
    // Pods on static NodeClaims (StaticCapacity gate): in-flight capacity the pass nominates
    // them to, as to an existing node.
    for c in &plan.static_node_claims {
        for p in &c.pods {
            out.insert(
                short(p).to_string(),
                Spot {
                    scheduled: true,
                    node: c.name.clone(),
                    existing: true,
                    instance_type: c.instance_type.clone(),
                    capacity_type: c.capacity_type.clone(),
                    zone: c.zone.clone(),
                    node_pool: Some(c.node_pool.clone()),
                    labels: BTreeMap::new(),
                    reason: None,
                },
            );
        }
    }
    let mut existing_pods: Vec<(String, String)> =
        plan.existing_nodes.iter().flat_map(|n| n.pods.iter().map(move |p| (p.clone(), n.name.clone()))).collect();
    for p in &m.pods {
        if let Some(node) = &p.node_name {
            existing_pods.push((p.key(), node.clone()));
        }
    }
    for (p, node) in existing_pods {
        let labels = node_labels(&node);
        out.insert(
            short(&p).to_string(),
            Spot {
                scheduled: true,
                existing: true,
                instance_type: labels.get("node.kubernetes.io/instance-type").cloned(),
                capacity_type: labels.get("karpenter.sh/capacity-type").cloned(),
                zone: labels.get("topology.kubernetes.io/zone").cloned(),
                node_pool: labels.get("karpenter.sh/nodepool").cloned(),
                node,
                labels,
                reason: None,
            },
        );
    }
    for u in &plan.unschedulable {
        out.insert(
            short(&u.pod).to_string(),
            Spot {
                scheduled: false,
                node: String::new(),
                existing: false,
                instance_type: None,
                capacity_type: None,
                zone: None,
                node_pool: None,
                labels: BTreeMap::new(),
                reason: Some(u.code.as_str().to_string()),
            },
        );
    }
    out
}

fn check_count(v: &Value, actual: usize, what: &str) -> Result<(), String> {
    if let Some(n) = v.as_u64() {
        if actual as u64 != n {
            return Err(format!("expected {what} {n}, got {actual}"));
        }
    } else {
        let min = v.get("min").and_then(Value::as_u64).unwrap_or(0);
        let max = v.get("max").and_then(Value::as_u64).unwrap_or(u64::MAX);
        if (actual as u64) < min || actual as u64 > max {
            return Err(format!("expected {what} in [{min}, {max}], got {actual}"));
        }
    }
    Ok(())
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn member(v: &Value, actual: &Option<String>, what: &str, pod: &str) -> Result<(), String> {
    let allowed = strs(v);
    match actual {
        Some(a) if allowed.contains(a) => Ok(()),
        _ => Err(format!("{pod}: expected {what} in {allowed:?}, got {actual:?}")),
    }
}

fn check_provision(e: &Value, plan: &Plan, m: &Model) -> Result<(), String> {
    let spots = spots(plan, m);
    if let Some(n) = e.get("newNodeClaims") {
        check_count(n, plan.node_claims.len(), "newNodeClaims")?;
    }
    if let Some(by) = e.get("newNodeClaimsByInstanceType").and_then(Value::as_object) {
        for (it, n) in by {
            let actual = plan.node_claims.iter().filter(|c| c.instance_type.as_deref() == Some(it.as_str())).count();
            check_count(n, actual, &format!("NodeClaims of {it}"))?;
        }
    }
    if let Some(pods) = e.get("pods").and_then(Value::as_object) {
        for (name, x) in pods {
            let spot = spots.get(name).ok_or_else(|| format!("{name}: pod not found in the answer"))?;
            let want = x.get("scheduled").and_then(Value::as_bool).unwrap_or(true);
            if spot.scheduled != want {
                return Err(format!(
                    "{name}: expected scheduled {want}, got {} ({})",
                    spot.scheduled,
                    spot.reason.clone().unwrap_or_default()
                ));
            }
            if let Some(n) = x.get("existingNode").and_then(Value::as_str) {
                if !(spot.existing && spot.node == n) {
                    return Err(format!("{name}: expected existing node {n}, got {}", spot.node));
                }
            }
            if let Some(b) = x.get("onExistingNode").and_then(Value::as_bool) {
                if spot.existing != b {
                    return Err(format!("{name}: expected onExistingNode {b}, got {}", spot.existing));
                }
            }
            if let Some(v) = x.get("instanceTypes") {
                member(v, &spot.instance_type, "instance type", name)?;
            }
            if let Some(v) = x.get("zones") {
                member(v, &spot.zone, "zone", name)?;
            }
            if let Some(ct) = x.get("capacityType").and_then(Value::as_str) {
                if spot.capacity_type.as_deref() != Some(ct) {
                    return Err(format!("{name}: expected capacity type {ct}, got {:?}", spot.capacity_type));
                }
            }
            if let Some(np) = x.get("nodePool").and_then(Value::as_str) {
                if spot.node_pool.as_deref() != Some(np) {
                    return Err(format!("{name}: expected NodePool {np}, got {:?}", spot.node_pool));
                }
            }
            if let Some(l) = x.get("nodeLabels").and_then(Value::as_object) {
                for (k, v) in l {
                    let want = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
                    if spot.labels.get(k) != Some(&want) {
                        return Err(format!("{name}: expected node label {k}={want}, got {:?}", spot.labels.get(k)));
                    }
                }
            }
            if let Some(r) = x.get("reason").and_then(Value::as_str) {
                if spot.reason.as_deref() != Some(r) {
                    return Err(format!("{name}: expected reason {r}, got {:?}", spot.reason));
                }
            }
        }
    }
    // Extension for static NodePools (docs/feature-gates.md): how many static NodeClaims the
    // static provisioning controller creates, and which NodeClaims its scale-down deletes.
    if let Some(n) = e.get("staticNodeClaims") {
        check_count(n, plan.static_node_claims.len(), "staticNodeClaims")?;
    }
    if let Some(v) = e.get("staticDeprovisioned") {
        let mut want = strs(v);
        want.sort();
        let mut got: Vec<String> = plan.static_deprovisioned.iter().map(|d| d.name.clone()).collect();
        got.sort();
        if want != got {
            return Err(format!("expected staticDeprovisioned {want:?}, got {got:?}"));
        }
    }
    // Extension for reserved capacity (docs/reservations.md): per reservation id, `used`,
    // `remaining` and `offered` after the pass.
    if let Some(rs) = e.get("reservations").and_then(Value::as_object) {
        for (id, want) in rs {
            let r = plan.reservations.iter().find(|r| &r.id == id).ok_or_else(|| format!("reservation {id} not in the answer"))?;
            if let Some(n) = want.get("used") {
                check_count(n, r.used as usize, &format!("used of {id}"))?;
            }
            if let Some(n) = want.get("remaining") {
                check_count(n, r.remaining.max(0) as usize, &format!("remaining of {id}"))?;
            }
            if let Some(b) = want.get("offered").and_then(Value::as_bool) {
                if r.offered != b {
                    return Err(format!("reservation {id}: expected offered {b}, got {} ({})", r.offered, r.message));
                }
            }
        }
    }
    let node_of = |p: &str| -> Result<String, String> {
        let s = spots.get(p).ok_or_else(|| format!("{p}: pod not found"))?;
        if !s.scheduled {
            return Err(format!("{p}: not scheduled"));
        }
        Ok(s.node.clone())
    };
    if let Some(groups) = e.get("sameNode").and_then(Value::as_array) {
        for g in groups {
            let pods = strs(g);
            let nodes: Result<Vec<String>, String> = pods.iter().map(|p| node_of(p)).collect();
            let nodes = nodes?;
            if nodes.windows(2).any(|w| w[0] != w[1]) {
                return Err(format!("expected {pods:?} on one node, got {nodes:?}"));
            }
        }
    }
    if let Some(groups) = e.get("differentNodes").and_then(Value::as_array) {
        for g in groups {
            let pods = strs(g);
            let nodes: Result<Vec<String>, String> = pods.iter().map(|p| node_of(p)).collect();
            let mut nodes = nodes?;
            let n = nodes.len();
            nodes.sort();
            nodes.dedup();
            if nodes.len() != n {
                return Err(format!("expected {pods:?} on different nodes"));
            }
        }
    }
    if let Some(groups) = e.get("groups").and_then(Value::as_array) {
        for g in groups {
            let pods = strs(g.get("pods").unwrap_or(&Value::Null));
            let sched = pods.iter().filter(|p| spots.get(p.as_str()).is_some_and(|s| s.scheduled)).count();
            if let Some(n) = g.get("scheduled") {
                check_count(n, sched, &format!("scheduled of {pods:?}"))?;
            }
            if let Some(n) = g.get("unscheduled") {
                check_count(n, pods.len() - sched, &format!("unscheduled of {pods:?}"))?;
            }
        }
    }
    if let Some(tops) = e.get("topology").and_then(Value::as_array) {
        for t in tops {
            let key = t.get("key").and_then(Value::as_str).unwrap_or("");
            let sel: Vec<(String, String)> = t
                .get("selector")
                .and_then(Value::as_object)
                .map(|o| o.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect())
                .unwrap_or_default();
            let mut counts: BTreeMap<String, u64> = BTreeMap::new();
            for p in &m.pods {
                let labels: BTreeMap<&str, &str> = p.labels.iter().map(|(k, v)| (m.interner.str(k), m.interner.str(v))).collect();
                if !sel.iter().all(|(k, v)| labels.get(k.as_str()) == Some(&v.as_str())) {
                    continue;
                }
                if let Some(s) = spots.get(&p.name) {
                    if s.scheduled {
                        let domain = if key == "kubernetes.io/hostname" {
                            s.labels.get(key).cloned().unwrap_or_else(|| s.node.clone())
                        } else {
                            s.labels.get(key).cloned().unwrap_or_default()
                        };
                        *counts.entry(domain).or_default() += 1;
                    }
                }
            }
            let mut actual: Vec<u64> = counts.values().copied().collect();
            actual.sort_unstable();
            let mut want: Vec<u64> =
                t.get("counts").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default();
            want.sort_unstable();
            if actual != want {
                return Err(format!("topology {key}: expected counts {want:?}, got {actual:?}"));
            }
        }
    }
    Ok(())
}

fn check_disrupt(e: &Value, d: &Decision) -> Result<(), String> {
    if let Some(want) = e.get("decision").and_then(Value::as_str) {
        if d.decision != want {
            return Err(format!("expected decision {want}, got {} ({})", d.decision, d.command));
        }
    }
    if let Some(want) = e.get("reason").and_then(Value::as_str) {
        if d.reason.map(|r| r.as_str()) != Some(want) {
            return Err(format!("expected reason {want}, got {:?}", d.reason));
        }
    }
    let mut actual = d.disrupted_nodes.clone();
    actual.sort();
    if let Some(v) = e.get("disruptedNodes") {
        let mut want = strs(v);
        want.sort();
        if want != actual {
            return Err(format!("expected disrupted nodes {want:?}, got {actual:?}"));
        }
    }
    if let Some(n) = e.get("disruptedCount") {
        check_count(n, actual.len(), "disruptedCount")?;
    }
    if let Some(v) = e.get("disruptedFrom") {
        let from = strs(v);
        if let Some(x) = actual.iter().find(|x| !from.contains(x)) {
            return Err(format!("disrupted {x}, which is not in {from:?}"));
        }
    }
    if let Some(r) = e.get("replacement") {
        let rep = d.replacement.as_ref().ok_or("expected a replacement, got none")?;
        if let Some(n) = r.get("count") {
            check_count(n, 1 + d.more_replacements.len(), "replacement count")?;
        }
        if let Some(v) = r.get("instanceTypes") {
            member(v, &rep.instance_type, "replacement instance type", "replacement")?;
        }
        if let Some(v) = r.get("instanceTypeOptions") {
            let mut want = strs(v);
            want.sort();
            let mut got = rep.instance_type_options.clone();
            got.sort();
            if want != got {
                return Err(format!("expected replacement options {want:?}, got {got:?}"));
            }
        }
        if let Some(ct) = r.get("capacityType").and_then(Value::as_str) {
            if rep.capacity_type.as_deref() != Some(ct) {
                return Err(format!("expected replacement capacity type {ct}, got {:?}", rep.capacity_type));
            }
        }
    }
    if let Some(b) = e.get("blocked").and_then(Value::as_object) {
        for (node, code) in b {
            let v = d.nodes.iter().find(|n| &n.name == node).ok_or_else(|| format!("{node}: node not in the answer"))?;
            if v.disrupted {
                return Err(format!("{node}: expected blocked, but it is disrupted"));
            }
            let code = code.as_str().unwrap_or("");
            if v.reasons.first().map(|r| r.code.as_str()) != Some(code) {
                return Err(format!(
                    "{node}: expected reason {code}, got {:?}",
                    v.reasons.iter().map(|r| r.code.as_str()).collect::<Vec<_>>()
                ));
            }
        }
    }
    if let Some(r) = e.get("retained") {
        for node in strs(r) {
            if actual.contains(&node) {
                return Err(format!("{node}: expected retained, but it is disrupted"));
            }
        }
    }
    // `ties`: the nodes Karpenter may pick among (set equality with the union of the answer's
    // disclosures; `[]` = no tie disclosed).
    if let Some(v) = e.get("ties") {
        let mut want = strs(v);
        want.sort();
        let mut got: Vec<String> = d.ties.iter().flat_map(|t| t.nodes.iter().cloned()).collect();
        got.sort();
        got.dedup();
        if want != got {
            return Err(format!("expected ties among {want:?}, got {got:?}"));
        }
    }
    // `scores`: node pool -> {approved, score: {min, max}} of the command's Balanced scores.
    if let Some(want) = e.get("scores").and_then(Value::as_object) {
        for (pool, w) in want {
            let s = d.scores.iter().find(|s| &s.node_pool == pool).ok_or_else(|| format!("no Balanced score for pool {pool}"))?;
            check_score(w, s.score, s.approved, pool)?;
        }
    }
    // `nodeScores`: node -> {approved, score: {min, max}}: the score on that node's verdict.
    if let Some(want) = e.get("nodeScores").and_then(Value::as_object) {
        for (node, w) in want {
            let v = d.nodes.iter().find(|n| &n.name == node).ok_or_else(|| format!("{node}: node not in the answer"))?;
            let s = v.score.as_ref().ok_or_else(|| format!("{node}: no Balanced score"))?;
            check_score(w, s.score, s.approved, node)?;
        }
    }
    Ok(())
}

fn check_score(w: &Value, score: f64, approved: bool, what: &str) -> Result<(), String> {
    if let Some(a) = w.get("approved").and_then(Value::as_bool) {
        if a != approved {
            return Err(format!("{what}: expected approved {a}, got {approved} (score {score})"));
        }
    }
    if let Some(r) = w.get("score") {
        let min = r.get("min").and_then(Value::as_f64).unwrap_or(f64::MIN);
        let max = r.get("max").and_then(Value::as_f64).unwrap_or(f64::MAX);
        if score < min || score > max {
            return Err(format!("{what}: expected score in [{min}, {max}], got {score}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::request;
    use serde_json::json;
    use std::path::Path;

    fn settings(s: serde_json::Value) -> Result<nodecast::Settings, String> {
        request(&json!({"objects": "", "settings": s}), Path::new(".")).map(|r| r.settings)
    }

    #[test]
    fn max_instance_types_and_gate_mapping_are_read() {
        let s = settings(json!({"maxInstanceTypes": 60, "featureGates": {"SpotToSpotConsolidation": true, "NodeRepair": false}})).unwrap();
        assert_eq!(s.max_instance_types, 60);
        assert!(s.feature_gates.spot_to_spot_consolidation);
        assert_eq!(settings(json!({})).unwrap().max_instance_types, 600);
        assert!(settings(json!({"legacyNodeRepair": true})).unwrap().legacy_node_repair);
        assert!(settings(json!({"legacyNodeRepair": "yes"})).unwrap_err().contains("settings.legacyNodeRepair"));
    }

    #[test]
    fn unknown_or_malformed_settings_are_refused() {
        assert!(settings(json!({"maxInstanceType": 60})).unwrap_err().contains("unknown key \"maxInstanceType\""));
        assert!(settings(json!({"maxInstanceTypes": 0})).unwrap_err().contains("settings.maxInstanceTypes"));
        assert!(settings(json!({"featureGates": {"SpotToSpotConsolidation": "yes"}}))
            .unwrap_err()
            .contains("featureGates.SpotToSpotConsolidation"));
        assert!(settings(json!({"featureGates": 3})).unwrap_err().contains("a string or a mapping"));
        assert!(settings(json!({"repairPolicies": [{"conditionType": "A"}]})).unwrap_err().contains("settings.repairPolicies"));
    }

    #[test]
    fn repair_policies_and_scheduler_config_are_read() {
        let s = settings(json!({
            "repairPolicies": [{"conditionType": "BadNode", "conditionStatus": "False", "tolerationDuration": "30m0s"}],
            "schedulerConfig": {"podTopologySpread": {"defaultConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}}
        }))
        .unwrap();
        assert_eq!(s.repair_policies.unwrap()[0].condition_type, "BadNode");
        assert_eq!(s.scheduler_config.unwrap().default_constraints().len(), 1);
    }

    #[test]
    fn aws_feature_gates_are_read_as_a_flag_or_a_mapping() {
        let s = settings(json!({"ignoreDraRequests": false, "awsFeatureGates": "DRANVIDIAGPU=true"})).unwrap();
        assert!(!s.ignore_dra_requests && s.aws_feature_gates.dranvidiagpu && !s.aws_feature_gates.draefa);
        let s = settings(json!({"awsFeatureGates": {"DRAEFA": true}})).unwrap();
        assert!(s.aws_feature_gates.draefa && !s.aws_feature_gates.dranvidiagpu);
        assert!(settings(json!({"awsFeatureGates": "DRAGPU=true"})).unwrap_err().contains("settings.awsFeatureGates"));
        assert!(settings(json!({"awsFeatureGates": {"DRAEFA": "on"}})).unwrap_err().contains("awsFeatureGates.DRAEFA"));
        assert!(settings(json!({"awsFeatureGates": 1})).unwrap_err().contains("a string or a mapping"));
    }
}
