package main

// CapacityBuffers (Karpenter v1.15's alpha CapacityBuffer gate, issue 28) on the Karpenter side:
// the buffers, their PodTemplates and the Deployments a scalableRef names go into the fake
// client; Karpenter's own capacitybuffer controller (pkg/controllers/capacitybuffer) resolves
// each buffer, writes its status and fills the virtual-pod cache
// (pkg/state/virtualpods), which the provisioner appends to the pending pods of its pass
// (GetPendingPods, gate on). The virtual pods (`capacity-buffer-<buffer>-<i>`) then appear in
// Karpenter's answer like any pod, as they do in nodecast's.

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/karpenter/pkg/controllers/capacitybuffer"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
)

// noTrigger: the buffer controller wakes the provisioner after a reconcile; the harness runs
// the provisioner itself once every buffer is reconciled.
type noTrigger struct{}

func (noTrigger) Trigger(types.UID) {}
func (noTrigger) TriggerReconcile() {}

// loadBuffers writes the buffers and what they refer to, and reconciles each buffer once.
func (e *Env) loadBuffers(cache *virtualpods.Cache) error {
	for _, t := range e.objs.PodTemplates {
		if err := e.create(t.DeepCopy()); err != nil {
			return fmt.Errorf("podtemplate %s: %w", t.Name, err)
		}
	}
	for _, d := range e.objs.Deployments {
		if err := e.create(d.DeepCopy()); err != nil {
			return fmt.Errorf("deployment %s: %w", d.Name, err)
		}
	}
	ctrl := capacitybuffer.NewController(e.client, noTrigger{}, cache)
	for _, b := range e.objs.Buffers {
		// A buffer's UID names its virtual pods' UIDs (`<uid>-<i>`), which order equal pods in
		// Karpenter's queue; both sides read the manifest's `metadata.uid` (the fake client
		// assigns none).
		c := b.DeepCopy()
		if err := e.create(c); err != nil {
			return fmt.Errorf("capacitybuffer %s: %w", b.Name, err)
		}
		if _, err := ctrl.Reconcile(e.ctx, reconcile.Request{NamespacedName: keyOf(c)}); err != nil {
			return fmt.Errorf("capacitybuffer %s reconcile: %w", b.Name, err)
		}
	}
	return nil
}
