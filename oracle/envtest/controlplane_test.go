package envtest

// The control plane both tests start: envtest's kube-apiserver and etcd (KUBEBUILDER_ASSETS, as
// `make envtest-bin` builds them), with CRDs from crdDirs, stopped when the test ends.

import (
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func startControlPlane(t *testing.T, crdDirs ...string) (*envtest.Environment, *rest.Config) {
	t.Helper()
	env := &envtest.Environment{CRDDirectoryPaths: crdDirs, ErrorIfCRDPathMissing: len(crdDirs) > 0}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	return env, cfg
}
