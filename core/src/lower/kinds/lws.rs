//! LeaderWorkerSet (`leaderworkerset.x-k8s.io/v1`, LWS v0.7).
//!
//! Facts the expansion follows:
//! - `replicas` (default 1) groups of `leaderWorkerTemplate.size` (default 1) pods each: the
//!   leaders are the StatefulSet `<lws>`'s pods `<lws>-<i>`, from `leaderTemplate` (or
//!   `workerTemplate` when there is none); each leader's workers are the StatefulSet `<lws>-<i>`'s
//!   pods `<lws>-<i>-<j>`, `j` = 1 … size-1 (its ordinals start at 1), from `workerTemplate`;
//! - every pod carries `leaderworkerset.sigs.k8s.io/name`, `…/group-index` (`i`),
//!   `…/group-key` (hex SHA-1 of `<namespace>/<leader pod name>`) and `…/worker-index` (0 on the
//!   leader), plus the StatefulSet labels `statefulset.kubernetes.io/pod-name` and
//!   `apps.kubernetes.io/pod-index`;
//! - `leaderworkerset.sigs.k8s.io/exclusive-topology: <key>` on the LWS puts each group alone in
//!   one domain of `<key>`: the leader gets a required pod affinity to its `group-key` and a
//!   required anti-affinity to every other `group-key` (in its namespace); workers, created once
//!   the leader is placed, get a node selector on the leader's domain, expressed here as the same
//!   affinity to the group (they must share its domain).
//!
//! Not modelled: the `template-revision-hash` label (a hash of the object nodecast does not
//! reproduce) and sub-group exclusive placement (`subgroup-exclusive-topology`), reported as an
//! error rather than planned without it.

use super::{count, emit, sha1_key, Exclusive, Out, Owner, PodPlan};
use crate::manifest::reader::{At, Sink};
use serde_json::Value;

const EXCLUSIVE: &str = "leaderworkerset.sigs.k8s.io/exclusive-topology";
const SUBGROUP_EXCLUSIVE: &str = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology";
const GROUP_KEY: &str = "leaderworkerset.sigs.k8s.io/group-key";

pub fn expand(root: &At, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    let Some(spec) = super::required(root, "spec", "LeaderWorkerSet", "spec.leaderWorkerTemplate", sink) else { return };
    let Some(replicas) = count(&spec, "replicas", 1, 0, sink) else { return };
    let Some(lwt) =
        super::required(&spec, "leaderWorkerTemplate", "LeaderWorkerSet", "leaderWorkerTemplate: {size: 2, workerTemplate: ...}", sink)
    else {
        return;
    };
    let Some(size) = count(&lwt, "size", 1, 1, sink) else { return };
    let Some(worker_template) =
        super::required(&lwt, "workerTemplate", "LeaderWorkerSet", "workerTemplate: {spec: {containers: ...}}", sink)
    else {
        return;
    };
    let annotations = root.v.pointer("/metadata/annotations").and_then(Value::as_object);
    if annotations.is_some_and(|a| a.contains_key(SUBGROUP_EXCLUSIVE)) {
        let at = root.get("metadata");
        let anchor = at.as_ref().and_then(|m| m.get("annotations")).unwrap_or(*root);
        sink.error(
            &anchor,
            "unsupported-value",
            format!("{SUBGROUP_EXCLUSIVE} is not modelled by nodecast"),
            "remove it to plan without sub-group placement",
        );
        return;
    }
    let exclusive = annotations.and_then(|a| a.get(EXCLUSIVE)).and_then(Value::as_str).map(str::to_string);
    let mut total = 0;
    if !out.budget.add(&mut total, replicas.saturating_mul(size), &spec, "LeaderWorkerSet", sink) {
        return;
    }
    let leader_template = lwt.get("leaderTemplate").unwrap_or(worker_template);
    let common = |i: i64, key: &str, worker: i64, pod: &str| {
        vec![
            ("leaderworkerset.sigs.k8s.io/name".to_string(), owner.name.clone()),
            ("leaderworkerset.sigs.k8s.io/group-index".to_string(), i.to_string()),
            (GROUP_KEY.to_string(), key.to_string()),
            ("leaderworkerset.sigs.k8s.io/worker-index".to_string(), worker.to_string()),
            ("statefulset.kubernetes.io/pod-name".to_string(), pod.to_string()),
            ("apps.kubernetes.io/pod-index".to_string(), if worker == 0 { i } else { worker }.to_string()),
        ]
    };
    let excl = |key: &str, leader: bool| {
        exclusive.as_ref().map(|t| Exclusive {
            topology_key: t.clone(),
            label: GROUP_KEY,
            value: key.to_string(),
            leader,
            anti_extra: None,
            all_namespaces: false,
        })
    };
    let mut leaders = Vec::with_capacity(replicas as usize);
    let mut workers = Vec::with_capacity((replicas * (size - 1)) as usize);
    for i in 0..replicas {
        let leader = format!("{}-{i}", owner.name);
        let key = sha1_key(&owner.namespace, &leader);
        leaders.push(PodPlan { name: leader.clone(), labels: common(i, &key, 0, &leader), exclusive: excl(&key, true) });
        for j in 1..size {
            let name = format!("{leader}-{j}");
            workers.push(PodPlan { labels: common(i, &key, j, &name), name, exclusive: excl(&key, false) });
        }
    }
    // Leaders first, then the workers, as the controllers create them.
    emit(out, owner, &leader_template, &leaders, sink);
    emit(out, owner, &worker_template, &workers, sink);
}
