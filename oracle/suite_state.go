package main

// What a pass of Karpenter's suites holds that a scenario cannot say directly (issue 39, sixth
// round): Karpenter's cluster state out of step with the API server, and the suite's fake Nodes
// without kubernetes.io/hostname.

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"sigs.k8s.io/karpenter/pkg/utils/resources"
)

// stateMatchesAPI: Karpenter's cluster state counts on each node exactly the requests of the
// pods the API server has bound there, and remembers exactly the API's bound pods with required
// anti-affinity. The scheduler reads both from the state (StateNode.Available, the topology's
// inverse anti-affinity), nodecast from the scenario's pods. A suite keeps the state by hand
// (ExpectProvisioned calls Cluster.UpdatePod for the pods it binds; ExpectDeleted deletes from
// the API server alone), so after a spec deletes bound pods Karpenter still sees their requests
// ("Topology Zonal should only schedule to minimum domains if already violating max skew": the
// deleted pods' nodes look full to it). No cluster is in that state for long (the pod controller
// updates it on the next event), and a scenario cannot say it.
func (p *SuitePass) stateMatchesAPI() error {
	if p.AntiAffinityPods == nil {
		return nil // an older dump
	}
	const cat = "Karpenter's cluster state and the API server disagree on bound pods (the suite updates the state by hand)"
	bound := map[string][]*corev1.Pod{}
	for i := range p.BoundPods {
		pod := &p.BoundPods[i]
		if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			bound[pod.Spec.NodeName] = append(bound[pod.Spec.NodeName], pod)
		}
	}
	for _, n := range p.Nodes {
		if n.Node == nil || n.PodRequests == nil {
			continue
		}
		api := corev1.ResourceList{}
		if pods := bound[n.Node.Name]; len(pods) > 0 {
			api = resources.RequestsForPods(pods...)
		}
		for _, k := range sets.KeySet(api).Union(sets.KeySet(n.PodRequests)).UnsortedList() {
			if a, s := api[k], n.PodRequests[k]; a.Cmp(s) != 0 {
				return exclude(cat, "node %s: the state counts %s %s requested, the API server's pods %s", n.Node.Name, s.String(), k, a.String())
			}
		}
	}
	remembered := map[string]string{}
	for i := range p.BoundPods {
		pod := &p.BoundPods[i]
		if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 && p.inState(pod.Spec.NodeName) {
			remembered[pod.Namespace+"/"+pod.Name] = pod.Spec.NodeName
		}
	}
	for k, node := range p.AntiAffinityPods {
		if remembered[k] != node {
			return exclude(cat, "the state remembers pod %s with required anti-affinity on %s, the API server has it on %q", k, node, remembered[k])
		}
	}
	for k, node := range remembered {
		if _, ok := p.AntiAffinityPods[k]; !ok {
			return exclude(cat, "pod %s with required anti-affinity is bound to %s, the state does not know it", k, node)
		}
	}
	return nil
}

// hostnameless: a pending pod spreads or has pod (anti-)affinity by hostname, or a bound pod has
// a required anti-affinity by hostname, and a Node of Karpenter's state has no
// kubernetes.io/hostname label. The suite's fake Nodes have none (a kubelet always sets it);
// Karpenter's topology reads the API Node's labels, so the pods on such a Node count in no
// hostname domain (topology.go countDomains, updateInverseAntiAffinity), while nodecast, like a
// kubelet, takes the Node's name.
func (p *SuitePass) hostnameless() bool {
	byHost := func(key string) bool { return key == corev1.LabelHostname }
	uses := false
	for _, pod := range p.Pods {
		for _, c := range pod.Spec.TopologySpreadConstraints {
			uses = uses || byHost(c.TopologyKey)
		}
		if pod.Spec.Affinity != nil {
			for _, t := range affinityTerms(pod.Spec.Affinity) {
				uses = uses || byHost(t.TopologyKey)
			}
		}
	}
	for _, pod := range p.BoundPods {
		if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				uses = uses || byHost(t.TopologyKey)
			}
		}
	}
	if !uses {
		return false
	}
	for _, n := range p.Nodes {
		if n.Node != nil && n.Node.Labels[corev1.LabelHostname] == "" {
			return true
		}
	}
	return false
}

// HostnamelessNodes: an existing-node placement difference in a hostnameless pass (see
// hostnameless), a state no kubelet-registered Node is in.
func (c *SuiteCase) HostnamelessNodes(class string) bool {
	return class == "existing-node placements differ" && c.hostnameless
}
