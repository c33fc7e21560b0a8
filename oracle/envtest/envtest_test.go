package envtest

// The built binaries work as envtest's control plane: controller-runtime's envtest starts them
// (KUBEBUILDER_ASSETS, as `make envtest-bin` sets it) and a Namespace round-trips through the API
// server and etcd.

import (
	"context"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestControlPlaneCreatesNamespace(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: run `make envtest-bin`")
	}
	_, cfg := startControlPlane(t)
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "nodecast-envtest"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatalf("creating a Namespace: %v", err)
	}
	got := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ns), got); err != nil {
		t.Fatalf("reading it back: %v", err)
	}
	if got.UID == "" || got.CreationTimestamp.IsZero() {
		t.Fatalf("the API server did not fill uid / creationTimestamp: %+v", got.ObjectMeta)
	}
	if got.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("phase %q, want Active", got.Status.Phase)
	}
}
