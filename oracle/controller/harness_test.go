package controller

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
)

// One pending pod on a fresh cluster: Karpenter's controllers launch a NodeClaim, the harness
// registers its Node, Karpenter initializes it and the harness binds the pod there.
// Needs KUBEBUILDER_ASSETS and CONTROLLER_CRDS (comma-separated; make oracle-controller's -crds).
func TestOnePodGetsANode(t *testing.T) {
	assets, crds := os.Getenv("KUBEBUILDER_ASSETS"), os.Getenv("CONTROLLER_CRDS")
	if assets == "" || crds == "" {
		t.Skip("KUBEBUILDER_ASSETS and CONTROLLER_CRDS not set")
	}
	t0 := time.Now()
	h, err := Start(Options{Assets: assets, CRDDirs: strings.Split(crds, ","), BatchIdle: time.Second, BatchMax: 10 * time.Second,
		LogDir: logDir(t), InstanceTypes: fake.InstanceTypes(5)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Stop() }()
	t.Logf("control plane and Karpenter started in %.1f s", time.Since(t0).Seconds())
	ctx := context.Background()
	np := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
		NodeClassRef: &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"},
		Requirements: []v1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelOSStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}},
	}}}}
	if err := h.Client.Create(ctx, np); err != nil {
		t.Fatal(err)
	}
	// Karpenter provisions for Ready NodePools only (its readiness controller marks them); a
	// fixed 2 s sleep here was a guess that load could beat (the pod then waited for its 10 s
	// requeue).
	t1 := time.Now()
	for {
		got := &v1.NodePool{}
		if err := h.Client.Get(ctx, client.ObjectKeyFromObject(np), got); err != nil {
			t.Fatal(err)
		}
		if got.StatusConditions().Get(status.ConditionReady).IsTrue() {
			break
		}
		if time.Since(t1) > 3*time.Minute {
			t.Fatalf("NodePool not Ready after 3 min: %+v", got.Status.Conditions)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("NodePool Ready in %.1f s", time.Since(t1).Seconds())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
	if err := h.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	if err := h.Client.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	// The pod's way to its node — Karpenter's batch, launch, the harness's Node, Karpenter's
	// registration and initialization, the binding — takes 1–3 s idle; the limit only stops a
	// test that is stuck, so it is generous for a loaded machine.
	t2 := time.Now()
	deadline := t2.Add(3 * time.Minute)
	for {
		got := &corev1.Pod{}
		if err := h.Client.Get(ctx, client.ObjectKeyFromObject(pod), got); err != nil {
			t.Fatal(err)
		}
		if got.Spec.NodeName != "" {
			launches, first, _, _ := h.Record()
			if len(launches) != 1 || !strings.HasPrefix(first["default/p"], "nodeclaim/") {
				t.Fatalf("launches %d, nomination %q", len(launches), first["default/p"])
			}
			if got.Spec.NodeName != launches[0].NodeClaim.Name {
				t.Fatalf("bound to %s, launched %s", got.Spec.NodeName, launches[0].NodeClaim.Name)
			}
			t.Logf("pod bound in %.1f s", time.Since(t2).Seconds())
			break
		}
		if time.Now().After(deadline) {
			l, f, _, fl := h.Record()
			nodes := &corev1.NodeList{}
			claims := &v1.NodeClaimList{}
			_ = h.Client.List(ctx, nodes)
			_ = h.Client.List(ctx, claims)
			for _, n := range nodes.Items {
				t.Logf("node %s labels %v taints %v alloc %v", n.Name, n.Labels, n.Spec.Taints, n.Status.Allocatable)
			}
			for _, c := range claims.Items {
				t.Logf("claim %s status %+v", c.Name, c.Status)
			}
			t.Fatalf("pod not bound after 3 min (launches %d, nominations %v, failures %v)", len(l), f, fl)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Karpenter's termination of the NodeClaim took 10 s idle (its Node's deletion); Reset removes
	// finalizers left after `wait` and fails 30 s later.
	t3 := time.Now()
	if err := h.Reset(ctx, nil, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	t.Logf("reset in %.1f s", time.Since(t3).Seconds())
	left, err := h.leftovers(ctx)
	if err != nil || len(left) != 0 {
		t.Fatalf("after Reset: %d objects left (%v)", len(left), err)
	}
}

func logDir(t *testing.T) string {
	if d := os.Getenv("CONTROLLER_LOG"); d != "" {
		return d
	}
	return t.TempDir()
}

// A spot or on-demand launch loses the empty capacity-reservation labels the fake gives every
// launch; a reserved one keeps its reservation's labels, and other labels stay.
func TestAWSLabelsDropsEmptyReservationLabelsOfUnreservedLaunches(t *testing.T) {
	for _, ct := range []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand, v1.CapacityTypeReserved} {
		nc := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
			v1.CapacityTypeLabelKey:                                ct,
			"karpenter.k8s.aws/capacity-reservation-id":            "",
			"karpenter.k8s.aws/capacity-reservation-type":          "",
			"karpenter.k8s.aws/capacity-reservation-interruptible": "",
			"karpenter.k8s.aws/instance-hypervisor":                "",
			corev1.LabelInstanceTypeStable:                         "g4dn.metal",
		}}}
		awsLabels(nc)
		_, kept := nc.Labels["karpenter.k8s.aws/capacity-reservation-id"]
		if kept != (ct == v1.CapacityTypeReserved) {
			t.Errorf("%s: reservation id label kept = %v", ct, kept)
		}
		if _, ok := nc.Labels["karpenter.k8s.aws/instance-hypervisor"]; !ok || nc.Labels[corev1.LabelInstanceTypeStable] != "g4dn.metal" {
			t.Errorf("%s: other labels changed: %v", ct, nc.Labels)
		}
	}
}
