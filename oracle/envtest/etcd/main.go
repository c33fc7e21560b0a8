// Command etcd is etcd's server (go.etcd.io/etcd/server/v3/etcdmain) at the version Kubernetes
// v1.36.1 is built against, for envtest. The entry point only hands over to etcdmain.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
