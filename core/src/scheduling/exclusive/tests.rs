use super::{OFF, TRIES};
use crate::{Input, Request};
use proptest::prelude::*;

const POOL: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5]}\n";

fn request(text: String) -> Request {
    Request { inputs: vec![Input { name: Some("x.yaml".into()), text }], ..Default::default() }
}

/// The plan's JSON and the number of open-NodeClaim tries, with the index on or off.
fn plan(req: &Request, index: bool) -> (String, u64) {
    OFF.with(|off| off.set(!index));
    TRIES.with(|t| t.set(0));
    let json = crate::plan(req).to_json();
    OFF.with(|off| off.set(false));
    (json, TRIES.with(|t| t.get()))
}

fn pod(cpu: &str) -> String {
    format!("{{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}', memory: 1Gi}}}}}}]}}")
}

fn jobset(name: &str, jobs: usize, parallelism: usize, key: &str, cpu: &str) -> String {
    format!(
        "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: {name}\n  annotations: {{alpha.jobset.sigs.k8s.io/exclusive-topology: {key}}}\nspec:\n  replicatedJobs:\n    - name: w\n      replicas: {jobs}\n      template:\n        spec:\n          parallelism: {parallelism}\n          template:\n            spec: {}\n",
        pod(cpu)
    )
}

fn lws(name: &str, groups: usize, size: usize, cpu: &str) -> String {
    format!(
        "---\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: {name}\n  annotations: {{leaderworkerset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname}}\nspec:\n  replicas: {groups}\n  leaderWorkerTemplate:\n    size: {size}\n    workerTemplate:\n      spec: {}\n",
        pod(cpu)
    )
}

/// A Deployment whose pods carry `team: <team>` and a hostname anti-affinity against every
/// other team (the family form written by hand), required or preferred.
fn team(name: &str, replicas: usize, team: usize, required: bool, cpu: &str) -> String {
    let term = "{labelSelector: {matchExpressions: [{key: team, operator: Exists}, {key: team, operator: NotIn, values: [t__]}]}, topologyKey: kubernetes.io/hostname}".replace("__", &team.to_string());
    let anti = if required {
        format!("requiredDuringSchedulingIgnoredDuringExecution: [{term}]")
    } else {
        format!("preferredDuringSchedulingIgnoredDuringExecution: [{{weight: 10, podAffinityTerm: {term}}}]")
    };
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}, team: t{team}}}}}\n    spec:\n      affinity: {{podAntiAffinity: {{{anti}}}}}\n      containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}', memory: 1Gi}}}}}}]\n"
    )
}

fn plain(name: &str, replicas: usize, cpu: &str) -> String {
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: {}\n",
        pod(cpu)
    )
}

/// Issue 29: n one-pod exclusive Jobs each tried every earlier NodeClaim (n²/2 tries); with
/// the index each tries the NodeClaims its Job may take, none here.
#[test]
fn exclusive_jobs_try_only_the_nodeclaims_they_may_take() {
    let n = 1500;
    let req = request(format!("{POOL}{}", jobset("js", n, 1, "kubernetes.io/hostname", "1")));
    let (with, tries) = plan(&req, true);
    assert!(tries <= 2 * n as u64, "{tries} tries for {n} exclusive Jobs");
    let crate::Outcome::Success(p) = crate::plan(&req).outcome else { panic!("{}", &with[..400.min(with.len())]) };
    assert_eq!(p.node_claims.len(), n, "one NodeClaim per exclusive Job");
    let (without, full) = plan(&req, false);
    assert!(full > (n * n / 4) as u64, "the full scan tries every earlier NodeClaim: {full}");
    assert_eq!(with, without, "the same plan");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Old (every open NodeClaim) and new (the index's candidates) scans place every pod alike,
    /// byte for byte, on random mixes of exclusive JobSets and LWSs, hand-written families
    /// (required and preferred), plain Deployments, hostname and zone keys.
    #[test]
    fn index_and_full_scan_agree(
        js in proptest::collection::vec((1usize..7, 1usize..4, 0usize..4, any::<bool>()), 0..3),
        lw in proptest::collection::vec((1usize..5, 1usize..4, 0usize..4), 0..2),
        teams in proptest::collection::vec((0usize..6, 0usize..3, any::<bool>(), 0usize..4), 0..4),
        plains in proptest::collection::vec((0usize..8, 0usize..4), 0..3),
    ) {
        const CPU: [&str; 4] = ["100m", "1", "3", "7"];
        let mut text = POOL.to_string();
        for (i, &(jobs, par, cpu, zone)) in js.iter().enumerate() {
            let key = if zone { "topology.kubernetes.io/zone" } else { "kubernetes.io/hostname" };
            text += &jobset(&format!("js{i}"), jobs, par, key, CPU[cpu]);
        }
        for (i, &(groups, size, cpu)) in lw.iter().enumerate() {
            text += &lws(&format!("lws{i}"), groups, size, CPU[cpu]);
        }
        for (i, &(replicas, t, required, cpu)) in teams.iter().enumerate() {
            text += &team(&format!("team{i}"), replicas, t, required, CPU[cpu]);
        }
        for (i, &(replicas, cpu)) in plains.iter().enumerate() {
            text += &plain(&format!("plain{i}"), replicas, CPU[cpu]);
        }
        let req = request(text);
        let (with, _) = plan(&req, true);
        let (without, _) = plan(&req, false);
        prop_assert_eq!(with, without);
    }
}
