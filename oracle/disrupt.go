package main

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/samber/lo"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	nodeclaimdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	nodepoolhash "sigs.k8s.io/karpenter/pkg/controllers/nodepool/hash"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/expiration"
	"sigs.k8s.io/karpenter/pkg/state/cost"
)

// DisruptAnswer is the normalised disruption answer of either side.
type DisruptAnswer struct {
	Decision    string   `json:"decision"`
	Reason      string   `json:"reason,omitempty"`
	Nodes       []string `json:"nodes"`
	Replacement *Claim   `json:"replacement,omitempty"`
	// How many NodeClaims the command launches (drift may launch several; Replacement is the first).
	Replacements int `json:"replacements,omitempty"`
	// Karpenter side only: the method that produced the command.
	Method string `json:"method,omitempty"`
	Error  string `json:"error,omitempty"`
	// nodecast side only: how many ties (candidates Karpenter orders arbitrarily) nodecast disclosed.
	Ties int `json:"ties,omitempty"`
}

func (e *Env) nodeClaims() ([]*v1.NodeClaim, error) {
	list := &v1.NodeClaimList{}
	if err := e.client.List(e.ctx, list); err != nil {
		return nil, err
	}
	out := make([]*v1.NodeClaim, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Disrupt runs one pass of what Karpenter does at `now`: the NodeClaim disruption controller
// (Consolidatable condition) and the expiration controller on every NodeClaim, then the
// disruption controller's methods in order, each with its candidates and budgets; the first
// method that produces a command decides.
func (e *Env) Disrupt() (*DisruptAnswer, error) {
	ncs, err := e.nodeClaims()
	if err != nil {
		return nil, err
	}
	// The NodePool hash controller runs first, as it does in the operator from the moment a
	// NodePool exists: it writes the pool's karpenter.sh/nodepool-hash (+ -version) annotations
	// that drift compares a NodeClaim's with, and, for a pool not yet at the current hash
	// version, moves its NodeClaims to that version (nodepool/hash/controller.go).
	pools := &v1.NodePoolList{}
	if err := e.client.List(e.ctx, pools); err != nil {
		return nil, err
	}
	hc := nodepoolhash.NewController(e.client, e.cp)
	for i := range pools.Items {
		if _, err := hc.Reconcile(e.ctx, &pools.Items[i]); err != nil {
			return nil, fmt.Errorf("nodepool hash %s: %w", pools.Items[i].Name, err)
		}
	}
	if ncs, err = e.nodeClaims(); err != nil {
		return nil, err
	}
	ncd := nodeclaimdisruption.NewController(e.clk, e.client, e.cp)
	for _, nc := range ncs {
		if _, err := ncd.Reconcile(e.ctx, nc); err != nil {
			return nil, fmt.Errorf("nodeclaim disruption %s: %w", nc.Name, err)
		}
	}
	now := e.clk.Now()
	exp := expiration.NewController(e.clk, e.client, e.cp)
	var expired []string
	for _, nc := range ncs {
		cur := &v1.NodeClaim{}
		if err := e.client.Get(e.ctx, keyOf(nc), cur); err != nil {
			return nil, err
		}
		if !cur.DeletionTimestamp.IsZero() {
			// Already deleting in the input: not an expiration of this pass.
			continue
		}
		if _, err := exp.Reconcile(e.ctx, cur); err != nil {
			return nil, fmt.Errorf("expiration %s: %w", nc.Name, err)
		}
		after := &v1.NodeClaim{}
		if err := e.client.Get(e.ctx, keyOf(nc), after); err != nil || !after.DeletionTimestamp.IsZero() {
			expired = append(expired, nc.Status.NodeName)
		}
	}
	e.clk.SetTime(now)
	if len(expired) > 0 {
		sort.Strings(expired)
		return &DisruptAnswer{Decision: "delete", Reason: "expired", Nodes: expired, Method: "expiration"}, nil
	}
	if err := e.syncState(); err != nil {
		return nil, err
	}
	queue := disruption.NewQueue(e.client, e.rec, e.cluster, e.clk, e.prov)
	// The operator hands the disruption controller its cluster-cost tracker, fed with every
	// NodeClaim by the NodeClaim informer; Balanced scoring reads a NodePool's total cost from it
	// (with nil it would fall back to the summed prices of the candidates only).
	clusterCost := cost.NewClusterCost(e.ctx, e.cp, e.client)
	for _, nc := range ncs {
		cur := &v1.NodeClaim{}
		if err := e.client.Get(e.ctx, keyOf(nc), cur); err != nil {
			return nil, err
		}
		if err := clusterCost.UpdateNodeClaim(e.ctx, cur); err != nil {
			return nil, fmt.Errorf("cluster cost %s: %w", nc.Name, err)
		}
	}
	methods := disruption.NewMethods(e.ctx, e.clk, e.cluster, e.client, e.prov, e.cp, e.rec, queue)
	for _, m := range methods {
		// StaticDrift runs (drifted NodeClaims of static pools: gen_drift.go's `static` pools,
		// tests/scenarios/st03); Drift runs (the drift scenarios give NodeClaims stale hashes).
		// The Drift method runs on every scenario, the hand-written FORMAT files too: FORMAT.md
		// §3.7 states drift out of their scope, and with the provider's instance-type labels on
		// each NodeClaim (load) none of them drifts on either side.
		cands, totals, err := disruption.GetCandidatesWithTotals(e.ctx, e.cluster, e.client, e.rec, e.clk, e.cp, m.ShouldDisrupt, m.Class(), queue, clusterCost)
		if err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
		if len(cands) == 0 {
			continue
		}
		if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
			setter.SetNodePoolTotals(totals)
		}
		budgets, err := disruption.BuildDisruptionBudgetMapping(e.ctx, e.cluster, e.clk, e.client, e.cp, e.rec, m.Reason())
		if err != nil {
			return nil, fmt.Errorf("budgets: %w", err)
		}
		cmds, err := e.withValidationClock(func() ([]disruption.Command, error) { return m.ComputeCommands(e.ctx, budgets, cands...) })
		e.clk.SetTime(now)
		if err != nil {
			return nil, fmt.Errorf("%T: %w", m, err)
		}
		cmds = lo.Filter(cmds, func(c disruption.Command, _ int) bool { return c.Decision() != disruption.NoOpDecision })
		if len(cmds) == 0 {
			continue
		}
		a := &DisruptAnswer{Method: strings.TrimPrefix(fmt.Sprintf("%T", m), "*disruption.")}
		for _, cmd := range cmds {
			// Several commands (StaticDrift's, one per node, in Go map order across pools): the
			// pass replaces when any of them does.
			if a.Decision != "replace" {
				a.Decision = strings.ToLower(string(cmd.Decision()))
			}
			a.Reason = strings.ToLower(string(m.Reason()))
			for _, c := range cmd.Candidates {
				a.Nodes = append(a.Nodes, c.Name())
			}
			for i, r := range cmd.Replacements {
				if i == 0 && a.Replacement == nil {
					c := e.claim(r.NodeClaim)
					if r.IsStaticNodeClaim {
						if c, err = e.staticReplacement(r.NodeClaim); err != nil {
							return nil, err
						}
					}
					c.Pods = nil
					a.Replacement = &c
				}
				a.Replacements++
			}
		}
		sort.Strings(a.Nodes)
		return a, nil
	}
	return &DisruptAnswer{Decision: "none", Nodes: []string{}}, nil
}

// withValidationClock runs f while moving the fake clock past the command validation delay
// whenever Karpenter waits on it (it re-checks its command after that delay before acting).
func (e *Env) withValidationClock(f func() ([]disruption.Command, error)) ([]disruption.Command, error) {
	var done atomic.Bool
	go func() {
		for !done.Load() {
			if e.clk.HasWaiters() {
				e.clk.Step(20 * time.Second)
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	defer done.Store(true)
	return f()
}
