//! A plan's CapacityBuffers: where the pass put each buffer's virtual pods, and the
//! `Provisioning` condition Karpenter writes for the buffer after the pass
//! (`computeProvisioningCondition` in pkg/controllers/provisioning/buffers.go, v1.15.0):
//! not ReadyForProvisioning → `NotReadyForProvisioning`; no replicas → `BufferEmpty`; any
//! virtual pod needing a new NodeClaim or failing → `RequiresNewCapacity`; all of them on
//! existing capacity → `FitsExistingCapacity`. The buffers themselves are resolved while
//! lowering (`lower::buffers`).

use crate::api::{CapacityBufferOut, UnschedulableOut};
use crate::model::Model;
use crate::scheduling::{Placement, Solution};

/// One entry per CapacityBuffer of the model. `unschedulable` is the plan's list (it also
/// holds the pods that a launch's truncation left pending).
pub(crate) fn render(m: &Model, sol: &Solution, unschedulable: &[UnschedulableOut]) -> Vec<CapacityBufferOut> {
    if m.capacity_buffers.is_empty() {
        return Vec::new();
    }
    let pending: std::collections::HashSet<&str> = unschedulable.iter().map(|u| u.pod.as_str()).collect();
    m.capacity_buffers
        .iter()
        .map(|b| {
            let (mut existing, mut new, mut failed) = (0, 0, 0);
            for p in b.pods.clone() {
                if pending.contains(m.pods[p].key().as_str()) {
                    failed += 1;
                    continue;
                }
                match sol.placements.get(&p) {
                    Some(Placement::Existing(_)) => existing += 1,
                    Some(Placement::Claim(_)) => new += 1,
                    None => failed += 1,
                }
            }
            let provisioning = match (&b.not_ready, b.replicas) {
                (Some(_), _) => "NotReadyForProvisioning",
                (None, 0) => "BufferEmpty",
                _ if new > 0 || failed > 0 => "RequiresNewCapacity",
                _ => "FitsExistingCapacity",
            };
            CapacityBufferOut {
                name: b.key.clone(),
                replicas: b.replicas,
                on_existing_nodes: existing,
                on_new_node_claims: new,
                unschedulable: failed,
                provisioning: provisioning.to_string(),
                message: b.not_ready.clone(),
            }
        })
        .collect()
}

/// The nodes a provisioning pass puts the buffers' virtual pods on (Karpenter's
/// `bufferPodCounts`, from `results.ExistingNodes`, pkg/controllers/provisioning/buffers.go):
/// for a one-pass `consolidate`, the pass Karpenter ran last on the same cluster. Emptiness
/// does not delete these nodes (disruption/consolidation.rs).
pub(crate) fn hosts(m: &Model) -> std::collections::BTreeSet<String> {
    let virtual_pods: std::collections::HashSet<usize> = m.capacity_buffers.iter().flat_map(|b| b.pods.clone()).collect();
    if virtual_pods.is_empty() {
        return Default::default();
    }
    let sol = crate::scheduling::solve(m);
    sol.placements
        .iter()
        .filter(|(p, _)| virtual_pods.contains(p))
        .filter_map(|(_, pl)| match pl {
            Placement::Existing(i) => Some(m.nodes[sol.existing[*i].node].name.clone()),
            Placement::Claim(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::api::Plan;
    use crate::json::{Input, Outcome, Request};

    const CATALOG: &str = r#"{"instanceTypes": [
      {"name": "s-2", "allocatable": {"cpu": "1900m", "memory": "3500Mi", "pods": "20"}, "onDemandPrice": 0.10},
      {"name": "s-8", "allocatable": {"cpu": "7900m", "memory": "15000Mi", "pods": "80"}, "onDemandPrice": 0.40}],
      "capacityTypes": ["on-demand"]}"#;
    const POOL: &str = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n";
    const TEMPLATE: &str = "---\napiVersion: v1\nkind: PodTemplate\nmetadata: {name: chunk, namespace: ml}\ntemplate:\n  metadata: {labels: {app: inference}}\n  spec:\n    containers: [{name: c, image: x, resources: {requests: {cpu: \"1500m\", memory: 1Gi}}}]\n";
    const DEPLOYMENT: &str = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ml}\nspec:\n  replicas: 10\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: 100m, memory: 128Mi}}}]\n";

    fn buffer(spec: &str) -> String {
        format!(
            "---\napiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {{name: spare, namespace: ml}}\nspec:\n{spec}"
        )
    }

    fn request(docs: &[&str], gate: bool) -> Request {
        let mut req = Request {
            inputs: vec![Input { name: Some("t.yaml".into()), text: docs.concat() }],
            catalog: Some(serde_json::from_str(CATALOG).expect("catalog")),
            ..Default::default()
        };
        req.settings.feature_gates.capacity_buffer = gate;
        req
    }

    fn plan(docs: &[&str], gate: bool) -> Plan {
        match crate::json::plan(&request(docs, gate)).outcome {
            Outcome::Success(p) => p,
            Outcome::Failure { errors } => panic!("plan failed: {errors:?}"),
        }
    }

    fn errors(docs: &[&str]) -> Vec<crate::error::InputError> {
        match crate::json::plan(&request(docs, true)).outcome {
            Outcome::Success(p) => panic!("expected a refusal, got {p:?}"),
            Outcome::Failure { errors } => errors,
        }
    }

    #[test]
    fn gate_off_skips_the_buffer_naming_the_gate() {
        let b = buffer("  podTemplateRef: {name: chunk}\n  replicas: 2\n");
        let p = plan(&[POOL, TEMPLATE, &b], false);
        assert!(p.capacity_buffers.is_empty());
        assert!(p.node_claims.is_empty());
        let s = p.skipped.iter().find(|s| s.kind == "CapacityBuffer").expect("skipped buffer");
        assert!(s.reason.contains("CapacityBuffer=true"), "{}", s.reason);
    }

    #[test]
    fn pod_template_buffer_provisions_for_its_virtual_pods() {
        let b = buffer("  podTemplateRef: {name: chunk}\n  replicas: 2\n");
        // The buffer comes before nothing else needs it: order in the input does not matter.
        let p = plan(&[&b, POOL, TEMPLATE], true);
        assert_eq!(p.capacity_buffers.len(), 1);
        let cb = &p.capacity_buffers[0];
        assert_eq!((cb.name.as_str(), cb.replicas, cb.on_new_node_claims, cb.unschedulable), ("ml/spare", 2, 2, 0));
        assert_eq!(cb.provisioning, "RequiresNewCapacity");
        let pods: Vec<&String> = p.node_claims.iter().flat_map(|c| &c.pods).collect();
        assert_eq!(pods.len(), 2);
        assert!(pods.iter().all(|n| n.starts_with("ml/capacity-buffer-spare-")), "{pods:?}");
        // The PodTemplate decided the plan: it is not "skipped".
        assert!(!p.skipped.iter().any(|s| s.kind == "PodTemplate"));
    }

    #[test]
    fn scalable_ref_percentage_and_limits() {
        // 20 % of 10 replicas = 2 chunks; limits cpu 150m allow 1 of 100m each.
        let b = buffer("  scalableRef: {kind: Deployment, name: web}\n  percentage: 20\n");
        let p = plan(&[POOL, DEPLOYMENT, &b], true);
        assert_eq!(p.capacity_buffers[0].replicas, 2);
        let names: Vec<String> = p.node_claims.iter().flat_map(|c| c.pods.clone()).filter(|n| n.contains("capacity-buffer")).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let limited = buffer("  scalableRef: {apiGroup: apps, kind: Deployment, name: web}\n  percentage: 20\n  limits: {cpu: 150m}\n");
        assert_eq!(plan(&[POOL, DEPLOYMENT, &limited], true).capacity_buffers[0].replicas, 1);
    }

    #[test]
    fn fits_existing_capacity() {
        let node = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {karpenter.sh/nodepool: p, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: s-8, topology.kubernetes.io/zone: test-zone-a}\nstatus:\n  allocatable: {cpu: 7900m, memory: 15000Mi, pods: \"80\"}\n";
        let b = buffer("  podTemplateRef: {name: chunk}\n  replicas: 2\n");
        let p = plan(&[POOL, TEMPLATE, node, &b], true);
        let cb = &p.capacity_buffers[0];
        assert_eq!((cb.on_existing_nodes, cb.provisioning.as_str()), (2, "FitsExistingCapacity"));
        assert!(p.node_claims.is_empty());
    }

    #[test]
    fn consolidate_keeps_an_empty_node_that_hosts_a_virtual_pod() {
        // An empty node, consolidation on at once: emptiness deletes it, unless the buffer's
        // virtual pod sits on it (Karpenter's HasBufferPods).
        let pool = POOL.replace(
            "      requirements: []\n",
            "      requirements: []\n  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 0s}\n",
        );
        let node = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {karpenter.sh/nodepool: p, karpenter.sh/initialized: \"true\", karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: s-8, topology.kubernetes.io/zone: test-zone-a}\nstatus:\n  allocatable: {cpu: 7900m, memory: 15000Mi, pods: \"80\"}\n";
        let b = buffer("  podTemplateRef: {name: chunk}\n  replicas: 1\n");
        let decide = |docs: &[&str], gate: bool| {
            let mut req = request(docs, gate);
            req.now = Some("2025-03-05T12:00:00Z".into());
            let v: serde_json::Value = serde_json::from_str(&crate::json::consolidate(&req).to_json()).expect("json");
            assert_eq!(v["status"], "success", "{v}");
            v["decision"].as_str().unwrap_or_default().to_string()
        };
        assert_eq!(decide(&[&pool, TEMPLATE, node, &b], false), "delete");
        assert_eq!(decide(&[&pool, TEMPLATE, node], true), "delete");
        assert_eq!(decide(&[&pool, TEMPLATE, node, &b], true), "none");
    }

    #[test]
    fn unresolved_references_leave_the_buffer_not_ready() {
        let b = buffer("  podTemplateRef: {name: missing}\n  replicas: 2\n");
        let p = plan(&[POOL, &b], true);
        let cb = &p.capacity_buffers[0];
        assert_eq!((cb.replicas, cb.provisioning.as_str()), (0, "NotReadyForProvisioning"));
        assert!(cb.message.as_deref().is_some_and(|m| m.contains("PodTemplateNotFound")), "{:?}", cb.message);
        let other_kind = buffer("  scalableRef: {apiGroup: batch, kind: Job, name: web}\n  replicas: 1\n");
        assert_eq!(plan(&[POOL, &other_kind], true).capacity_buffers[0].provisioning, "NotReadyForProvisioning");
        let zero = buffer("  podTemplateRef: {name: chunk}\n  replicas: 0\n");
        assert_eq!(plan(&[POOL, TEMPLATE, &zero], true).capacity_buffers[0].provisioning, "BufferEmpty");
    }

    #[test]
    fn the_crd_rules_refuse_bad_buffers() {
        let both = buffer("  podTemplateRef: {name: chunk}\n  scalableRef: {kind: Deployment, name: web}\n  replicas: 1\n");
        let e = errors(&[POOL, TEMPLATE, DEPLOYMENT, &both]);
        assert!(e.iter().any(|e| e.message.contains("not both") && e.object.as_deref() == Some("CapacityBuffer/ml/spare")), "{e:?}");
        let bare = buffer("  podTemplateRef: {name: chunk}\n");
        assert!(errors(&[POOL, TEMPLATE, &bare]).iter().any(|e| e.message.contains("replicas or limits must also be set")));
        let negative = buffer("  podTemplateRef: {name: chunk}\n  replicas: -1\n");
        let e = errors(&[POOL, TEMPLATE, &negative]);
        assert!(e.iter().any(|e| e.code == "out-of-range" && e.path.as_deref() == Some("spec.replicas")), "{e:?}");
    }
}
