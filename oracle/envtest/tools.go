//go:build tools

// The kube-apiserver command is built straight from k8s.io/kubernetes (go build
// k8s.io/kubernetes/cmd/kube-apiserver); this import keeps it in go.mod for `go mod tidy`.
package envtest

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
