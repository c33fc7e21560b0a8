//! Lowering the running cluster: Nodes and NodeClaims, and joining a NodeClaim to its Node.

use super::pools::{duration, read_taints};
use super::*;

impl Lowering {
    pub(super) fn node(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let mut n = self.existing(&meta, sink);
        if let Some(spec) = root.get("spec") {
            if let Some(ts) = spec.get("taints") {
                n.taints = read_taints(&ts, sink);
            }
            if let Some(id) = sink.opt_scalar(&spec, "providerID").filter(|id| !id.is_empty()) {
                self.node_provider_ids.push((id, meta.name.clone()));
            }
        }
        if let Some(status) = root.get("status") {
            if let Some(a) = status.get("allocatable") {
                n.allocatable = self.resource_map(&a, sink);
            }
            n.capacity = match status.get("capacity") {
                Some(c) => self.resource_map(&c, sink),
                None => n.allocatable.clone(),
            };
            if let Some(conds) = status.get("conditions") {
                for c in sink.list(&conds) {
                    let Some(type_) = sink.opt_scalar(&c, "type") else {
                        // `type` is the list's merge key: the API server's strategic merge needs it.
                        sink.error(&c, "required", "Node condition without a type", "type: Ready (or AcceleratedHardwareReady, ...)");
                        continue;
                    };
                    let status = sink.opt_scalar(&c, "status").unwrap_or_default();
                    if type_ == "Ready" {
                        n.ready = status == "True";
                    }
                    n.conditions.push(crate::model::NodeCondition {
                        type_,
                        status,
                        reason: sink.opt_scalar(&c, "reason").unwrap_or_default(),
                        last_transition: c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink)),
                    });
                }
            }
        } else {
            sink.error(root, "required", "Node without status.allocatable", "status.allocatable: {cpu: ..., memory: ..., pods: ...}");
        }
        // Read from the Node, as Karpenter's StateNode.Annotations() does for a registered node.
        n.do_not_repair = has_true_annotation(&meta.annotations, "karpenter.sh/do-not-repair");
        let init_label =
            self.interner.get("karpenter.sh/initialized").and_then(|k| n.labels.get(k)).map(|v| self.interner.str(v) == "true");
        n.initialized = init_label.unwrap_or(true);
        // Karpenter reads registration from the `karpenter.sh/registered` label (statenode.go,
        // Registered); the conformance format may leave Karpenter's labels out, and an
        // initialized node has registered.
        let registered_label =
            self.interner.get("karpenter.sh/registered").and_then(|k| n.labels.get(k)).map(|v| self.interner.str(v) == "true");
        n.registered = registered_label.unwrap_or(n.initialized);
        n.initialized_at = n.created;
        self.nodes.push(n);
    }

    pub(super) fn existing(&mut self, meta: &Meta, sink: &Sink) -> ExistingNode {
        let interner = &mut self.interner;
        let mut pairs: Vec<(u32, u32)> =
            meta.labels.iter().map(|(k, v)| (interner.intern(labels::normalize_key(k)), interner.intern(v))).collect();
        let hostname = interner.intern(labels::HOSTNAME);
        if !pairs.iter().any(|(k, _)| *k == hostname) {
            pairs.push((hostname, interner.intern(&meta.name)));
        }
        let labels_set = LabelSet::from_pairs(pairs);
        let label = |k: &str| meta.labels.iter().find(|(lk, _)| labels::normalize_key(lk) == k).map(|(_, v)| v.clone());
        ExistingNode {
            name: meta.name.clone(),
            labels: labels_set,
            taints: Vec::new(),
            allocatable: Resources::new(),
            capacity: Resources::new(),
            nodepool: label(labels::NODEPOOL),
            instance_type: label(labels::INSTANCE_TYPE),
            zone: label(labels::ZONE),
            capacity_type: label(labels::CAPACITY_TYPE),
            created: meta.created,
            initialized: true,
            initialized_condition: None,
            ready: true,
            managed: label(labels::NODEPOOL).is_some(),
            in_flight: false,
            unlaunched: false,
            do_not_disrupt: has_true_annotation(&meta.annotations, labels::DO_NOT_DISRUPT),
            marked_for_deletion: meta.deleting,
            nodeclaim_name: None,
            expire_after: None,
            last_pod_event: None,
            initialized_at: None,
            startup_taints: Vec::new(),
            nodepool_hash: None,
            drifted: None,
            has_termination_grace_period: false,
            conditions: Vec::new(),
            termination_grace_period: None,
            do_not_repair: false,
            registered: true,
            rebooting: false,
            reboot_finished: None,
            nominated_until: None,
            document: sink.document,
            source: None,
        }
    }

    pub(super) fn node_claim(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let mut n = self.existing(&meta, sink);
        n.nodeclaim_name = Some(meta.name.clone());
        n.in_flight = true;
        n.initialized = false;
        // Until merge_claims joins it with its Node: whether its `Registered` condition is True.
        n.registered = false;
        let annotation = |k: &str| meta.annotations.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
        let mut claim_hash = hash_version::ClaimHash {
            hash: annotation("karpenter.sh/nodepool-hash"),
            version: annotation("karpenter.sh/nodepool-hash-version"),
            ..Default::default()
        };
        n.nodepool_hash = claim_hash.hash.clone().zip(claim_hash.version.clone());
        if let Some(spec) = root.get("spec") {
            if let Some(ts) = spec.get("taints") {
                n.taints = read_taints(&ts, sink);
            }
            if let Some(ts) = spec.get("startupTaints") {
                n.startup_taints = read_taints(&ts, sink);
            }
            if let Some(e) = spec.get("expireAfter") {
                n.expire_after = duration(&e, true, sink);
            }
            n.has_termination_grace_period = spec.get("terminationGracePeriod").is_some_and(|t| !t.v.is_null());
            n.termination_grace_period = spec
                .get("terminationGracePeriod")
                .and_then(|t| t.v.as_str().map(str::to_string))
                .and_then(|t| parse_duration(&t, false).ok().flatten());
            // Until its Node registers, a NodeClaim is known by its requirements: single-valued
            // `In` requirements (zone, capacity type, instance type, ...) act as its labels.
            if let Some(rs) = spec.get("requirements") {
                for r in sink.list(&rs) {
                    let key = sink.opt_scalar(&r, "key").map(|k| labels::normalize_key(&k).to_string()).unwrap_or_default();
                    let op = sink.opt_scalar(&r, "operator").unwrap_or_default();
                    let values = r.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
                    if op == "In" && values.len() == 1 && !key.is_empty() {
                        let k = self.interner.intern(&key);
                        if n.labels.get(k).is_none() {
                            let v = self.interner.intern(&values[0]);
                            n.labels.set(k, v);
                            match key.as_str() {
                                labels::INSTANCE_TYPE => n.instance_type = Some(values[0].clone()),
                                labels::ZONE => n.zone = Some(values[0].clone()),
                                labels::CAPACITY_TYPE => n.capacity_type = Some(values[0].clone()),
                                labels::NODEPOOL => {
                                    n.nodepool = Some(values[0].clone());
                                    n.managed = true;
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
        n.managed = true;
        let mut node_name = None;
        if let Some(status) = root.get("status") {
            node_name = sink.opt_scalar(&status, "nodeName");
            claim_hash.provider_id = sink.opt_scalar(&status, "providerID").filter(|id| !id.is_empty());
            if let Some(a) = status.get("allocatable") {
                n.allocatable = self.resource_map(&a, sink);
            }
            n.capacity = match status.get("capacity") {
                Some(c) => self.resource_map(&c, sink),
                None => n.allocatable.clone(),
            };
            if let Some(t) = status.get("lastPodEventTime") {
                n.last_pod_event = lower_pod::timestamp(&t, sink);
            }
            if let Some(conds) = status.get("conditions") {
                for c in sink.list(&conds) {
                    match sink.opt_scalar(&c, "type").as_deref() {
                        Some("Initialized") => {
                            n.initialized = sink.opt_scalar(&c, "status").as_deref() == Some("True");
                            n.initialized_condition = Some(n.initialized);
                            n.initialized_at = c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink));
                        }
                        // Karpenter's state counts a NodeClaim whose instance is terminating
                        // as deleted (statenode.go, Deleted).
                        Some("InstanceTerminating") if sink.opt_scalar(&c, "status").as_deref() == Some("True") => {
                            n.marked_for_deletion = true;
                        }
                        Some("Registered") => n.registered = sink.opt_scalar(&c, "status").as_deref() == Some("True"),
                        // A repair reboot: True while it is in flight; False once it ended,
                        // its transition time the end of the last reboot (statenode.go).
                        Some("Rebooting") => match sink.opt_scalar(&c, "status").as_deref() {
                            Some("True") => n.rebooting = true,
                            Some("False") => n.reboot_finished = c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink)),
                            _ => {}
                        },
                        Some("Drifted") if sink.opt_scalar(&c, "status").as_deref() != Some("True") => {
                            claim_hash.has_drifted_condition = true;
                        }
                        Some("Drifted") => {
                            claim_hash.has_drifted_condition = true;
                            let reason = sink.opt_scalar(&c, "reason").unwrap_or_default();
                            n.drifted = Some((reason, c.get("lastTransitionTime").and_then(|t| lower_pod::timestamp(&t, sink))));
                        }
                        _ => {}
                    }
                }
            }
        }
        n.unlaunched = claim_hash.provider_id.is_none();
        // The Node name links the claim to its Node; merge_claims joins them.
        n.name = node_name.unwrap_or_else(|| meta.name.clone());
        claim_hash.node = n.name.clone();
        self.claim_hashes.push(claim_hash);
        self.claims.push(n);
    }

    /// Join NodeClaims with their Nodes (R1.6): the Node supplies labels, taints and
    /// allocatable; the claim supplies lifecycle facts. A claim without a Node is in flight.
    pub(super) fn merge_claims(&mut self) {
        // By provider ID first, as Karpenter's cluster state (state/cluster.go, UpdateNode and
        // UpdateNodeClaim key a node by it): a NodeClaim whose `status.providerID` is a Node's
        // `spec.providerID` is that Node's claim, with or without `status.nodeName`.
        for (claim, hash) in self.claims.iter_mut().zip(self.claim_hashes.iter_mut()) {
            let by_id = hash.provider_id.as_ref().and_then(|id| self.node_provider_ids.iter().find(|(n, _)| n == id));
            if let Some((_, node)) = by_id {
                claim.name = node.clone();
                hash.node = node.clone();
            }
        }
        for claim in std::mem::take(&mut self.claims) {
            match self.nodes.iter_mut().find(|n| n.name == claim.name) {
                Some(node) => {
                    node.nodeclaim_name = claim.nodeclaim_name;
                    // With its NodeClaim, the Node is deleting when the NodeClaim is (a
                    // deletionTimestamp or InstanceTerminating): Karpenter's StateNode.Deleted
                    // reads the Node's own deletionTimestamp only for a Node without a
                    // NodeClaim (statenode.go). A Node being deleted under a live NodeClaim is
                    // active to the provisioner and the disruption controller.
                    node.marked_for_deletion = claim.marked_for_deletion;
                    node.created = claim.created.or(node.created);
                    node.expire_after = claim.expire_after;
                    node.last_pod_event = claim.last_pod_event;
                    if claim.initialized_at.is_some() {
                        node.initialized_at = claim.initialized_at;
                    }
                    node.do_not_disrupt |= claim.do_not_disrupt;
                    node.startup_taints = claim.startup_taints;
                    node.nodepool_hash = claim.nodepool_hash;
                    node.drifted = claim.drifted;
                    node.has_termination_grace_period = claim.has_termination_grace_period;
                    node.termination_grace_period = claim.termination_grace_period;
                    node.managed = true;
                    // With its NodeClaim the Node is Karpenter's, and Karpenter calls it initialized
                    // only with the label `karpenter.sh/initialized=true` (statenode.go,
                    // Initialized). Karpenter sets that label and the claim's Initialized condition
                    // together, and the conformance format leaves the label out (FORMAT §3.7): a
                    // Node without the label follows its claim's Initialized condition, and is
                    // initialized when the claim has none (as a lone Node's assumed claim is).
                    let init = self.interner.get("karpenter.sh/initialized").and_then(|k| node.labels.get(k));
                    node.initialized = match (init, claim.initialized_condition) {
                        (Some(v), _) => self.interner.str(v) == "true",
                        (None, Some(condition)) => condition,
                        (None, None) => true,
                    };
                    // Registration likewise: the label `karpenter.sh/registered`, else the
                    // claim's Registered condition, else initialization (which follows it).
                    let registered = self.interner.get("karpenter.sh/registered").and_then(|k| node.labels.get(k));
                    node.registered = match registered {
                        Some(v) => self.interner.str(v) == "true",
                        None => claim.registered || node.initialized,
                    };
                    node.rebooting = claim.rebooting;
                    node.reboot_finished = claim.reboot_finished;
                    // Karpenter fills the Node's zero or missing values from the NodeClaim only
                    // until the node is initialized (statenode.go, Allocatable/Capacity); an
                    // initialized Node with an empty status.allocatable has no room, not even a
                    // pod slot.
                    if !node.initialized {
                        for (id, v) in claim.allocatable.iter_nonzero() {
                            if node.allocatable.get(id) == 0 {
                                node.allocatable.set(id, v);
                            }
                        }
                        for (id, v) in claim.capacity.iter_nonzero() {
                            if node.capacity.get(id) == 0 {
                                node.capacity.set(id, v);
                            }
                        }
                    }
                }
                // Without a Node, Karpenter's state calls it neither registered nor
                // initialized, whatever its conditions say.
                None => self.nodes.push(ExistingNode { registered: false, ..claim }),
            }
        }
    }
}
