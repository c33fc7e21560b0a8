//! The typed Pod path (typed_pod.rs) against the tree way: every input of the repository, and
//! Pods written to reach each of the typed path's branches, lowered both ways, must give the
//! same pods, numbered alike by the interner, the same errors and the same skipped objects.

use super::*;
use crate::manifest::{decode, test_input_files};
use std::cell::Cell;

thread_local! {
    /// Set: every document goes the tree way (the reference the typed path is compared with).
    pub(crate) static TREE_ONLY: Cell<bool> = const { Cell::new(false) };
    /// Pods `Lowerer::add_typed_pod` lowered (decoded typed from JSON text) on this thread.
    pub(crate) static STREAMED_TYPED: Cell<usize> = const { Cell::new(0) };
}

/// The model's pods, errors and skipped objects as text, lowered with or without the typed path.
fn lowered(docs: &[Document], tree_only: bool) -> String {
    TREE_ONLY.with(|c| c.set(tree_only));
    let (cat, tables) = crate::catalog::build(None).expect("embedded catalog");
    let out = match lower(docs, cat, tables, Settings::default()) {
        Ok(m) => {
            let names: Vec<&str> = (0..m.interner.len() as u32).map(|i| m.interner.str(i)).collect();
            format!("{:?}\n{:?}\n{:?}\n{:?}", m.pods, m.skipped, m.jobs.len(), names)
        }
        Err(e) => format!("{e:?}"),
    };
    TREE_ONLY.with(|c| c.set(false));
    out
}

/// How many documents of `docs` the typed path takes.
fn typed_count(docs: &[Document]) -> usize {
    docs.iter().filter(|d| crate::manifest::typed::PodDoc::of_value(&d.value).is_some()).count()
}

#[test]
fn every_input_lowers_alike_both_ways() {
    let mut typed = 0;
    for path in test_input_files(&["yaml", "yml", "json"]) {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(docs) = decode(&text, Some("f")) else { continue };
        let n = typed_count(&docs);
        if n == 0 {
            continue;
        }
        typed += n;
        assert_eq!(lowered(&docs, false), lowered(&docs, true), "{}", path.display());
    }
    assert!(typed >= 20, "the inputs hold {typed} Pods of the typed shape");
}

#[test]
fn written_pods_lower_alike_both_ways() {
    let pods = [
        // Plain, with labels out of key order, a limit-only GPU, a node selector and tolerations.
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"z":"1","app":"x"},"annotations":{"karpenter.sh/do-not-disrupt":"true"}},
            "spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"memory":"1Gi","cpu":"500m"},"limits":{"nvidia.com/gpu":"1","cpu":"1"}}},
            {"name":"d","resources":{"requests":{"cpu":"0.25"}}}],"nodeSelector":{"topology.kubernetes.io/zone":"us-east-1a","kubernetes.io/arch":"amd64"},
            "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"},{"key":"e","value":"v"},{"operator":"Exists"}]}}"#,
        // Required node affinity with every operator, a restricted label, an unknown capacity type.
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","namespace":"ml","uid":"u-1","creationTimestamp":"2025-03-01T08:00:00Z"},
            "spec":{"nodeName":"","affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
              {"matchExpressions":[{"key":"karpenter.k8s.aws/instance-gpu-name","operator":"In","values":["a10g","t4"]},
                {"key":"karpenter.k8s.aws/instance-cpu","operator":"Gt","values":["3"]},{"key":"x","operator":"NotIn","values":["y"]},
                {"key":"karpenter.sh/capacity-type","operator":"In","values":["cheap"]}]},
              {"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"Exists"},{"key":"beta.kubernetes.io/arch","operator":"In","values":["arm64"]}]},
              {"matchExpressions":[{"key":"zz","operator":"In"}]},{}]}}},
            "resources":{"requests":{"cpu":"2","memory":"3Gi","ephemeral-storage":"1Gi"}},"containers":[{"name":"c"}]}, "status":{"phase":"Succeeded"}}"#,
        // Opts out of Karpenter; a bound pod; no spec.
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"},"spec":{"nodeName":"n1","nodeSelector":{"karpenter.sh/nodepool":"x"},
            "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"karpenter.sh/nodepool","operator":"DoesNotExist"}]}]}}}}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"d","generation":3,"labels":null},"status":{}}"#,
        // Refused by the tree way (the typed path must leave them to it): a fractional GPU, a bad
        // quantity, an unknown operator, a bad bound, an unknown effect, an empty name.
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e"},"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"0.5"}}}]}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"f"},"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g"},"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Near"}]}]}}}}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"h"},"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Lt","values":["x"]}]}]}}}}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"i"},"spec":{"tolerations":[{"key":"a","effect":"Sometimes"}]}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":""}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"j","creationTimestamp":"yesterday"}}"#,
    ];
    let priority_class =
        r#"{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"p"},"value":7,"globalDefault":true}"#;
    for (i, pod) in pods.iter().enumerate() {
        for with_class in [false, true] {
            let text = if with_class { format!("[{pod}, {priority_class}]") } else { pod.to_string() };
            let docs = decode(&text, Some("f")).unwrap();
            assert_eq!(lowered(&docs, false), lowered(&docs, true), "pod {i}");
        }
        // The refused ones (from `e` on) are never typed.
        let docs = decode(pod, Some("f")).unwrap();
        let typed = crate::manifest::typed::PodDoc::of_value(&docs[0].value).is_some_and(|p| super::typed_pod::takes(&p));
        assert_eq!(typed, i < 4, "pod {i}");
    }
    // All of them in one input: the interner numbers strings across pods alike both ways.
    let all = format!("[{}]", pods[..4].join(","));
    let docs = decode(&all, Some("f")).unwrap();
    assert_eq!(lowered(&docs, false), lowered(&docs, true));
}

#[test]
fn owned_pods_lower_alike_both_ways() {
    // Owner references as the pods of an existing cluster carry them (consolidation's input):
    // a ReplicaSet controller, a StatefulSet that is not the controller next to a Job that is,
    // references without a controller (the first stands for the owner), and a Service and a
    // ReplicaSet whose selectors the default spreads deduce from the controller.
    let pods = [
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"shop","labels":{"app":"web","pod-template-hash":"5d8"},
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5d8","uid":"u-1","controller":true,"blockOwnerDeletion":true}]},
            "spec":{"nodeName":"n1","containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"250m","memory":"64Mi"}}}]},"status":{"phase":"Running"}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","namespace":"shop","labels":{"app":"db"},
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db"},{"apiVersion":"batch/v1","kind":"Job","name":"backup","controller":true}]},
            "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c","namespace":"shop","labels":{"app":"web"},
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent","controller":false},{"kind":"Node","name":"n1"}]}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"d","ownerReferences":[]}}"#,
    ];
    let others = [
        r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"}}}"#,
        r#"{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-5d8","namespace":"shop"},"spec":{"replicas":0,
            "selector":{"matchLabels":{"app":"web","pod-template-hash":"5d8"}},"template":{"metadata":{"labels":{"app":"web","pod-template-hash":"5d8"}},
            "spec":{"containers":[{"name":"c"}]}}}}"#,
    ];
    for (i, pod) in pods.iter().enumerate() {
        let docs = decode(pod, Some("f")).unwrap();
        let typed = crate::manifest::typed::PodDoc::of_value(&docs[0].value).is_some_and(|p| super::typed_pod::takes(&p));
        assert!(typed, "pod {i} fits the typed shape");
        let docs = decode(&format!("[{}, {pod}]", others.join(",")), Some("f")).unwrap();
        assert_eq!(lowered(&docs, false), lowered(&docs, true), "pod {i}");
    }
    let all = format!("[{},{}]", others.join(","), pods.join(","));
    let docs = decode(&all, Some("f")).unwrap();
    let both = lowered(&docs, false);
    assert_eq!(both, lowered(&docs, true));
    assert!(both.contains("web-5d8") && both.contains("backup"), "the owners reach the pods: {both}");
}
