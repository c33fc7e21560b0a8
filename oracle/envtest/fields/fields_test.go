package fields

import (
	"os"
	"strings"
	"testing"
)

// The committed table is what the generator makes of k8s.io/api v0.36.1 and Karpenter v1.15.0's
// CRDs. NODECAST_BLESS=1 rewrites it.
func TestTableIsCurrent(t *testing.T) {
	crds := os.Getenv("KARPENTER_CRDS")
	if crds == "" {
		t.Skip("KARPENTER_CRDS is not set: run `make fields-check`")
	}
	table, err := Generate(crds)
	if err != nil {
		t.Fatal(err)
	}
	const path = "../../../core/src/validate/fields.txt"
	want := table.Text()
	if os.Getenv("NODECAST_BLESS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs from the sources at line %d: %q, generated %q (`make fields-update`)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines, generated %d (`make fields-update`)", path, len(gl), len(wl))
	}
	// The shapes nodecast relies on.
	for _, line := range []string{
		"kind v1 Pod core/v1.Pod",
		"kind karpenter.sh/v1 NodePool karpenter.sh/v1.NodePool",
		"  nodeSelector {}-",
		"  requests {}-",
	} {
		if !strings.Contains(want, line+"\n") {
			t.Errorf("the table has no line %q", line)
		}
	}
}
