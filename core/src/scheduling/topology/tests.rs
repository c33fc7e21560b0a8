//! The anti-affinity families of exclusive placement (issue 29).

use super::*;
use crate::json::{Input, Request};

/// A JobSet of `n` one-pod Jobs with exclusive hostname placement (one anti-affinity per
/// Job selecting every other Job's pods).
fn exclusive_model(n: usize) -> Model {
    let text = format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: np}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}\n      requirements: []\n---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n  annotations: {{alpha.jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname}}\nspec:\n  replicatedJobs:\n  - name: w\n    replicas: {n}\n    template:\n      spec:\n        template:\n          spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}\n"
    );
    let req = Request { inputs: vec![Input { name: None, text }], ..Default::default() };
    crate::load::model(&req.sources()).expect("a valid JobSet").0
}

/// Issue 29: each Job's anti-affinity group no longer counts every other Job's placed pods
/// (n² count entries, a scan of n groups per placement), and a pod meets the inverse groups
/// of the other Jobs as one merged group, with the same verdicts as the groups one by one.
#[test]
fn exclusive_jobs_share_one_family_and_count_each_pod_once() {
    let n = 300;
    let m = exclusive_model(n);
    assert_eq!(m.pods.len(), n);
    let mut topo = Topology::new(m.keys.hostname);
    let mut own = Vec::new();
    let mut owned = Vec::new();
    for pod in &m.pods {
        let t = &pod.anti_affinity[0];
        own.push(topo.group(affinity_key(t, true, false), pod, &m));
        owned.push(topo.group(affinity_key(t, true, true), pod, &m));
    }
    assert_eq!(topo.families.len(), 2, "one family of non-inverse and one of inverse groups");
    let host = |i: usize| crate::scheduling::placeholder(i as u32);
    for (i, pod) in m.pods.iter().enumerate() {
        topo.register_hostname(host(i));
        let mut placed = Requirements::new();
        placed.add(m.keys.hostname, Requirement::in_values([host(i)]), &m.interner);
        record(&mut topo, pod, &placed, &[], &[owned[i]], &m);
    }
    let entries: usize = topo.groups.iter().map(|g| g.counts.len()).sum::<usize>()
        + topo.families.iter().map(|f| f.all.len() + f.by.values().map(|b| b.len()).sum::<usize>()).sum::<usize>();
    assert!(entries <= 4 * n, "{entries} count entries for {n} pods (n² before)");
    let exists = Requirement::exists();
    for (j, pod) in m.pods.iter().enumerate().step_by(37) {
        let mut merged = Vec::new();
        topo.merged_selecting(pod, &mut merged);
        assert_eq!(merged.len(), 1, "the other Jobs' inverse groups as one");
        let mut plain = Vec::new();
        topo.selecting(pod, true, &mut plain);
        assert!(plain.is_empty(), "family members are not listed one by one");
        for i in [0, j, n - 1] {
            let on = Requirement::in_values([host(i)]);
            // Another Job's pod is on host(i) unless i == j: both the pod's own group and
            // the merged inverse groups refuse it there, and allow its own host.
            let expect = (i == j).then(|| on.clone());
            assert_eq!(topo.next_domain_of(own[j], &exists, &on, false, &m.interner), expect, "own group, pod {j} host {i}");
            assert_eq!(topo.next_domain_of(merged[0], &exists, &on, false, &m.interner), expect, "merged, pod {j} host {i}");
            // The inverse member of Job i counts Job i's pod only.
            let mine = topo.next_domain_of(owned[i], &exists, &Requirement::in_values([host(j)]), false, &m.interner);
            assert_eq!(mine.is_some(), i != j, "inverse member {i} at host {j}");
        }
        // A fresh hostname (a new NodeClaim) is free for every group.
        let fresh = Requirement::in_values([host(n + 1)]);
        assert!(topo.next_domain_of(merged[0], &exists, &fresh, false, &m.interner).is_some());
    }
}
