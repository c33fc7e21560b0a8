// Command nodepool-hash prints, for every NodePool in the YAML files given as arguments,
// the template hash Karpenter v1.15.0 computes (NodePool.Hash, stamped on NodeClaims as
// karpenter.sh/nodepool-hash) and the hash version. nodecast's hash (core/src/gohash.rs)
// is checked against this output in core/tests/drift.rs.
//
// The NodePool is decoded the way the API server hands it to Karpenter: JSON into the Go
// type, with the CRD's default for spec.template.spec.expireAfter (720h) applied first.
package main

import (
	"bytes"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func main() {
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			var generic map[string]any
			if err := yaml.Unmarshal(doc, &generic); err != nil {
				fmt.Fprintln(os.Stderr, path, err)
				os.Exit(1)
			}
			if generic["kind"] != "NodePool" {
				continue
			}
			defaultExpireAfter(generic)
			js, err := yaml.Marshal(generic)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			np := &v1.NodePool{}
			if err := yaml.Unmarshal(js, np); err != nil {
				fmt.Fprintln(os.Stderr, path, err)
				os.Exit(1)
			}
			fmt.Printf("%s %s %s\n", np.Name, np.Hash(), v1.NodePoolHashVersion)
		}
	}
}

// defaultExpireAfter applies the CRD default the API server would.
func defaultExpireAfter(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	tspec, _ := tmpl["spec"].(map[string]any)
	if tspec == nil {
		return
	}
	if _, ok := tspec["expireAfter"]; !ok {
		tspec["expireAfter"] = "720h"
	}
}
