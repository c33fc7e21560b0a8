package main

// Static NodePools (Karpenter v1.15's alpha StaticCapacity gate, issue 28) on the Karpenter side.
// With the gate on, Karpenter's own static provisioning controller
// (pkg/controllers/static/provisioning, Reconcile per NodePool with `spec.replicas`) creates the
// NodeClaims a static pool lacks, through its provisioner's CreateNodeClaims, against the
// cluster state's NodePoolState and `limits.nodes`. The harness then plays the NodeClaim
// lifecycle's launch for each new NodeClaim (the AWS provider's Create: the types compatible
// with the NodeClaim's requirements, `launch` in catalog.go as a set; the launched type's
// capacity, allocatable and labels written to the NodeClaim), feeds cluster state and runs the
// provisioning pass, which may put pending pods on those in-flight NodeClaims. nodecast's static
// NodeClaims are compared with these: per NodePool the same count, each launch one the provider
// may make, the same pods on them (pairings of equal NodeClaims are interchangeable).
//
// With the gate on the static deprovisioning controller (pkg/controllers/static/deprovisioning)
// runs first on every static pool: a pool above its replicas has NodeClaims deleted (their
// finalizer keeps them, deleting), and the pass provisions for their pods. Compared: the set of
// nodes deleted (`staticDeleted`).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	pscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	staticdeprov "sigs.k8s.io/karpenter/pkg/controllers/static/deprovisioning"
	staticprov "sigs.k8s.io/karpenter/pkg/controllers/static/provisioning"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// nodecastStatic: nodecast's static NodeClaims from its answer line (`static`), which the
// harness launches on the Karpenter side when the provider may make that launch.
func nodecastStatic(raw json.RawMessage) []Claim {
	var a struct {
		Static []Claim `json:"static"`
	}
	_ = json.Unmarshal(raw, &a)
	return a.Static
}

// reconcileStaticPools runs one of Karpenter's static controllers (`run`, named `what` in
// errors) on every static NodePool of the scenario, as read back from the client; false when the
// scenario has none (nothing ran).
func (e *Env) reconcileStaticPools(what string, run func(context.Context, *v1.NodePool) (reconcile.Result, error)) (bool, error) {
	static := false
	for _, p := range e.objs.NodePools {
		if p.Spec.Replicas == nil {
			continue
		}
		static = true
		np := &v1.NodePool{}
		if err := e.client.Get(e.ctx, keyOf(p), np); err != nil {
			return static, err
		}
		if _, err := run(e.ctx, np); err != nil {
			return static, fmt.Errorf("%s of %s: %w", what, np.Name, err)
		}
	}
	return static, nil
}

// runStatic runs the static provisioning controller on every static NodePool and launches the
// NodeClaims it created. `want` is nodecast's static NodeClaims (their launches are taken when
// the provider's launch set holds them, so the pass that follows sees the same capacity).
func (e *Env) runStatic(want []Claim) error {
	ctrl := staticprov.NewController(e.client, e.cluster, e.rec, e.cpd, e.prov, e.clk, e.dac, nil)
	before := map[string]bool{}
	list := &v1.NodeClaimList{}
	if err := e.client.List(e.ctx, list); err != nil {
		return err
	}
	for _, nc := range list.Items {
		before[nc.Name] = true
	}
	static, err := e.reconcileStaticPools("static provisioning", ctrl.Reconcile)
	if err != nil || !static {
		return err
	}
	if err := e.client.List(e.ctx, list); err != nil {
		return err
	}
	byPool := map[string][]Claim{}
	for _, c := range want {
		byPool[c.NodePool] = append(byPool[c.NodePool], c)
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	e.static = map[string]*Claim{}
	for i := range items {
		nc := &items[i]
		if before[nc.Name] {
			continue
		}
		pool := nc.Labels[v1.NodePoolLabelKey]
		c := &Claim{NodePool: pool, Pods: []string{}, Options: []string{}}
		e.static[nc.Name] = c
		np := &v1.NodePool{}
		if err := e.client.Get(e.ctx, client.ObjectKey{Name: pool}, np); err != nil {
			return err
		}
		its, err := e.cpd.GetInstanceTypes(e.ctx, np)
		if err != nil {
			return err
		}
		reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nc.Spec.Requirements...)
		var compatible cloudprovider.InstanceTypes
		for _, it := range its {
			if reqs.Compatible(it.Requirements, scheduling.AllowUndefinedWellKnownLabels) == nil && len(it.Offerings.Compatible(reqs).Available()) > 0 {
				compatible = append(compatible, it)
			}
		}
		c.Launch = launch(compatible, reqs, e.aws)
		if c.Launch == nil {
			// No launch: the AWS provider's Create fails with InsufficientCapacity and the
			// lifecycle deletes the NodeClaim (nodeclaim/lifecycle/launch.go); the static
			// controller recreates it on its next reconcile. Left in place unlaunched, it would
			// keep cluster state unsynced, and Karpenter's provisioner waits for a sync.
			nc.Finalizers = nil
			if err := e.client.Update(e.ctx, nc); err != nil {
				return err
			}
			if err := e.client.Delete(e.ctx, nc); err != nil {
				return err
			}
			e.cluster.DeleteNodeClaim(nc.Name)
			continue
		}
		// nodecast's launch when the provider may make it, else the first the set allows.
		typ, zone := "", ""
		for k, w := range byPool[pool] {
			if w.CapacityType == c.Launch.CapacityType && slices.Contains(c.Launch.Types[w.InstanceType], w.Zone) {
				typ, zone = w.InstanceType, w.Zone
				byPool[pool] = slices.Delete(byPool[pool], k, k+1)
				break
			}
		}
		if typ == "" {
			names := make([]string, 0, len(c.Launch.Types))
			for n := range c.Launch.Types {
				names = append(names, n)
			}
			sort.Strings(names)
			typ = names[0]
			zones := slices.Clone(c.Launch.Types[typ])
			sort.Strings(zones)
			zone = zones[0]
		}
		c.InstanceType, c.Zone, c.CapacityType = typ, zone, c.Launch.CapacityType
		if err := e.launchStatic(nc, its, typ, zone, c.Launch.CapacityType); err != nil {
			return err
		}
	}
	return e.syncState()
}

// runStaticDeprovisioning runs the static deprovisioning controller on every static NodePool
// and returns the nodes (NodeClaim names when they have no Node) whose NodeClaims it deleted.
func (e *Env) runStaticDeprovisioning() ([]string, error) {
	ctrl := staticdeprov.NewController(e.client, e.cluster, e.cpd, e.clk, e.rec)
	list := &v1.NodeClaimList{}
	if err := e.client.List(e.ctx, list); err != nil {
		return nil, err
	}
	already := map[string]bool{}
	for _, nc := range list.Items {
		already[nc.Name] = !nc.DeletionTimestamp.IsZero()
	}
	static, err := e.reconcileStaticPools("static deprovisioning", ctrl.Reconcile)
	if err != nil || !static {
		return nil, err
	}
	if err := e.client.List(e.ctx, list); err != nil {
		return nil, err
	}
	var deleted []string
	for i := range list.Items {
		nc := &list.Items[i]
		if nc.DeletionTimestamp.IsZero() || already[nc.Name] {
			continue
		}
		name := nc.Status.NodeName
		if name == "" {
			name = nc.Name
		}
		deleted = append(deleted, name)
	}
	sort.Strings(deleted)
	return deleted, e.syncState()
}

// staticReplacement: StaticDrift's replacement, the pool's bare template (no instance-type
// options): what the AWS provider may launch for it, as for a NodeClaim of runStatic.
func (e *Env) staticReplacement(nc *pscheduling.NodeClaim) (Claim, error) {
	c := Claim{NodePool: nc.NodePoolName, Static: true}
	np := &v1.NodePool{}
	if err := e.client.Get(e.ctx, client.ObjectKey{Name: nc.NodePoolName}, np); err != nil {
		return c, err
	}
	its, err := e.cpd.GetInstanceTypes(e.ctx, np)
	if err != nil {
		return c, err
	}
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nc.NodeClaim.Spec.Requirements...)
	var compatible cloudprovider.InstanceTypes
	for _, it := range its {
		if reqs.Compatible(it.Requirements, scheduling.AllowUndefinedWellKnownLabels) == nil && len(it.Offerings.Compatible(reqs).Available()) > 0 {
			compatible = append(compatible, it)
		}
	}
	c.Launch = launch(compatible, reqs, e.aws)
	return c, nil
}

// launchStatic writes what the lifecycle's launch writes on a NodeClaim the provider launched:
// provider ID, the type's capacity and allocatable, its labels (the type's single-valued
// requirements, zone and capacity type), Launched.
func (e *Env) launchStatic(nc *v1.NodeClaim, its cloudprovider.InstanceTypes, typ, zone, ct string) error {
	var it *cloudprovider.InstanceType
	for _, x := range its {
		if x.Name == typ {
			it = x
		}
	}
	if it == nil {
		return fmt.Errorf("static NodeClaim %s: type %s not offered", nc.Name, typ)
	}
	if nc.Labels == nil {
		nc.Labels = map[string]string{}
	}
	for key, req := range it.Requirements {
		if req.Operator() == corev1.NodeSelectorOpIn && req.Len() == 1 && key != cloudprovider.ReservationIDLabel &&
			!strings.HasPrefix(key, "karpenter.k8s.aws/capacity-reservation") {
			nc.Labels[key] = req.Values()[0]
		}
	}
	nc.Labels[corev1.LabelInstanceTypeStable] = typ
	nc.Labels[corev1.LabelTopologyZone] = zone
	nc.Labels[v1.CapacityTypeLabelKey] = ct
	if err := e.client.Update(e.ctx, nc); err != nil {
		return err
	}
	nc.Status.ProviderID = "fake://" + nc.Name
	nc.Status.Capacity = it.Capacity.DeepCopy()
	nc.Status.Allocatable = it.Allocatable()
	nc.StatusConditions().SetTrue(v1.ConditionTypeLaunched)
	return e.client.Status().Update(e.ctx, nc)
}

// compareStatic: nodecast's static NodeClaims against Karpenter's ("" when they agree).
func compareStatic(n, k []Claim) (string, string) {
	count := func(cs []Claim) map[string]int {
		m := map[string]int{}
		for _, c := range cs {
			m[c.NodePool]++
		}
		return m
	}
	if nc, kc := count(n), count(k); fmt.Sprint(nc) != fmt.Sprint(kc) {
		return "static NodeClaim count differs", fmt.Sprintf("nodecast %v, karpenter %v", nc, kc)
	}
	if !slices.Equal(podSets(n), podSets(k)) {
		return "pods on static NodeClaims differ", fmt.Sprintf("nodecast %v, karpenter %v", podSets(n), podSets(k))
	}
	if i, ok := matchClaims(n, k, func(nc, kc Claim) bool { return nc.NodePool == kc.NodePool && launchOK(nc, kc) }); !ok {
		var may []string
		for _, kc := range k {
			if kc.NodePool == n[i].NodePool && kc.Launch != nil {
				may = append(may, fmt.Sprintf("%s %v", kc.Launch.CapacityType, kc.Launch.Types))
			}
		}
		return "static NodeClaim launch differs", fmt.Sprintf("%s: nodecast %s %s %s; karpenter may launch %v", n[i].NodePool, n[i].InstanceType, n[i].CapacityType, n[i].Zone, may)
	}
	return "", ""
}
