package envtest

// `make e2e` (issue 36): nodecast reading a real API server. envtest starts the kube-apiserver
// and etcd built by `make envtest-bin` with Karpenter v1.15.0's CRDs (KARPENTER_CRDS, from the Go
// module cache of karpenter-provider-aws v1.15.0); each case applies example manifests (status
// included, through the status subresource) and checks that
//   - `nodecast CMD --context envtest` answers what `nodecast CMD FILES` answers (the same JSON,
//     once the input names and what the API server adds are set aside — see sameAnswer),
//   - `--snapshot S` then `nodecast CMD S` gives the live answer byte for byte,
//   - a user bound to README's ClusterRole (examples/live/clusterrole.yaml) can read it all, one
//     without it is refused with the missing permission named, an unreachable server and an
//     API version Karpenter v1.15 does not serve are clear errors with exit code 2.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// liveCase: one nodecast command over example files, applied to the cluster for the case.
type liveCase struct {
	name  string
	args  []string
	files []string
}

var liveCases = []liveCase{
	{"plan: the demo (GPU training Job, two NodePools)", []string{"plan"},
		[]string{"examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml"}},
	{"plan: a kubectl export (Deployment, ReplicaSet, a running replica)", []string{"plan"},
		[]string{"examples/live-export.yaml"}},
	{"plan: inference pools", []string{"plan"},
		[]string{"examples/nodepools/gpu-inference.yaml", "examples/nodepools/gpu-general.yaml"}},
	{"validate: the demo", []string{"validate"},
		[]string{"examples/nodepools/gpu-general.yaml", "examples/nodepools/gpu-training.yaml", "examples/workloads/training-job-4gpu.yaml"}},
	{"consolidate: a half-used GPU node, WhenEmptyOrUnderutilized", []string{"consolidate", "--now", "2030-01-01T00:00:00Z"},
		[]string{"examples/disruption/cluster-state.yaml", "examples/disruption/pool-underutilized.yaml"}},
}

func TestLiveClusterAnswersLikeItsFiles(t *testing.T) {
	nodecast := os.Getenv("NODECAST")
	crds := os.Getenv("KARPENTER_CRDS")
	if os.Getenv("KUBEBUILDER_ASSETS") == "" || nodecast == "" || crds == "" {
		t.Skip("KUBEBUILDER_ASSETS, NODECAST and KARPENTER_CRDS are not all set: run `make e2e`")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	env, cfg := startControlPlane(t, crds)
	dir := t.TempDir()
	admin := kubeconfig(t, env, envtest.User{Name: "admin", Groups: []string{"system:masters"}}, filepath.Join(dir, "admin.kubeconfig"))
	cl := newApplier(t, cfg)
	ctx := context.Background()

	for _, c := range liveCases {
		t.Run(c.name, func(t *testing.T) {
			var paths []string
			for _, f := range c.files {
				paths = append(paths, filepath.Join(repo, f))
			}
			created := cl.apply(ctx, t, paths)
			defer cl.remove(ctx, t, created)
			fromFiles := run(t, repo, nodecast, append(append(append([]string{}, c.args...), c.files...), "-o", "json"))
			snap := filepath.Join(dir, "snapshot.json")
			live := run(t, repo, nodecast, append(append([]string{}, c.args...), "--kubeconfig", admin, "--context", "envtest", "--snapshot", snap, "-o", "json"))
			again := run(t, repo, nodecast, append(append([]string{}, c.args...), snap, "-o", "json"))
			if live.code != again.code || !bytes.Equal(live.stdout, again.stdout) {
				t.Errorf("the snapshot does not reproduce the live answer (exit %d vs %d)\nlive:\n%s\nsnapshot:\n%s", live.code, again.code, live.stdout, again.stdout)
			}
			if bytes.Contains(mustRead(t, snap), []byte(`"kind":"Secret"`)) {
				t.Errorf("the snapshot holds a Secret")
			}
			if live.code != fromFiles.code {
				t.Fatalf("exit %d live, %d from the files\nlive stderr: %s\nfiles stderr: %s", live.code, fromFiles.code, live.stderr, fromFiles.stderr)
			}
			if why := sameAnswer(fromFiles.stdout, withoutServerObjects(t, live.stdout, mustRead(t, snap))); why != "" {
				t.Errorf("the live answer differs from the files' answer: %s\nfiles:\n%s\nlive:\n%s", why, fromFiles.stdout, live.stdout)
			}
		})
	}

	t.Run("an EC2NodeClass status written through the status subresource narrows the live answer", func(t *testing.T) {
		file := "examples/live/nodeclass-status.yaml"
		objs := decodeObjects(t, filepath.Join(repo, file))
		var class *unstructured.Unstructured
		var created []createdObject
		defer func() { cl.remove(ctx, t, created) }()
		for _, o := range objs {
			if o.GetKind() == "EC2NodeClass" {
				class = o.DeepCopy()
				delete(o.Object, "status") // created as the controller has not resolved it yet
			}
			c, err := cl.create(ctx, o)
			if err != nil {
				t.Fatalf("%s: %s %s: %v", file, o.GetKind(), o.GetName(), err)
			}
			created = append(created, c)
		}
		plan := []string{"plan", "--kubeconfig", admin, "--context", "envtest", "-o", "json"}
		before := run(t, repo, nodecast, plan)
		// The EC2NodeClass controller's write: status.subnets, through the status subresource.
		gvr := schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
		stored, err := cl.dyn.Resource(gvr).Get(ctx, class.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stored.Object["status"] = class.Object["status"]
		if _, err := cl.dyn.Resource(gvr).UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("writing the EC2NodeClass status: %v", err)
		}
		after := run(t, repo, nodecast, plan)
		fromFile := run(t, repo, nodecast, []string{"plan", file, "-o", "json"})
		if before.code != 0 || after.code != 0 || fromFile.code != 0 {
			t.Fatalf("exit %d before, %d after the status, %d from the file\n%s\n%s", before.code, after.code, fromFile.code, before.stderr, after.stderr)
		}
		if why := sameAnswer(fromFile.stdout, after.stdout); why != "" {
			t.Errorf("with the status, the live answer differs from the file's: %s", why)
		}
		zonesBefore, zonesAfter := claimZones(t, before.stdout), claimZones(t, after.stdout)
		for _, z := range zonesAfter {
			if z != "us-east-1b" && z != "us-east-1c" {
				t.Errorf("a NodeClaim in %s, outside the status's subnets (us-east-1b, us-east-1c): %v", z, zonesAfter)
			}
		}
		if len(zonesAfter) != 2 || reflect.DeepEqual(zonesBefore, zonesAfter) {
			t.Errorf("the status did not change the zones: before %v, after %v", zonesBefore, zonesAfter)
		}
		if !bytes.Contains(after.stdout, []byte(`"nodeclass-status-zones"`)) || bytes.Contains(before.stdout, []byte(`"nodeclass-status-zones"`)) {
			t.Errorf("the answer does not say (only) after the status that it narrowed the zones:\n%s", after.stdout)
		}
	})

	t.Run("README's ClusterRole is enough, and no permission is refused by name", func(t *testing.T) {
		role := filepath.Join(repo, "examples/live/clusterrole.yaml")
		readme := string(mustRead(t, filepath.Join(repo, "README.md")))
		if !strings.Contains(readme, strings.TrimSpace(string(mustRead(t, role)))) {
			t.Errorf("README.md does not show examples/live/clusterrole.yaml as it is")
		}
		created := cl.apply(ctx, t, []string{role, filepath.Join(repo, "examples/live-export.yaml")})
		defer cl.remove(ctx, t, created)
		reader := kubeconfig(t, env, envtest.User{Name: "nodecast-reader"}, filepath.Join(dir, "reader.kubeconfig"))
		nobody := kubeconfig(t, env, envtest.User{Name: "nobody"}, filepath.Join(dir, "nobody.kubeconfig"))
		ok := run(t, repo, nodecast, []string{"plan", "--kubeconfig", reader, "-o", "json"})
		if ok.code != 0 {
			t.Errorf("the ClusterRole's user: exit %d\n%s", ok.code, ok.stderr)
		}
		refused := run(t, repo, nodecast, []string{"plan", "--kubeconfig", nobody})
		if refused.code != 2 || !strings.Contains(string(refused.stderr), "forbidden: missing permission `list` on resource \"nodepools\" in API group \"karpenter.sh\"") {
			t.Errorf("a user without the ClusterRole: exit %d, stderr %s", refused.code, refused.stderr)
		}
	})

	t.Run("an unreachable API server", func(t *testing.T) {
		bad := filepath.Join(dir, "unreachable.kubeconfig")
		text := strings.Replace(string(mustRead(t, admin)), strings.TrimSuffix(strings.TrimPrefix(cfg.Host, "https://"), "/"), "127.0.0.1:1", 1)
		if err := os.WriteFile(bad, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, repo, nodecast, []string{"validate", "--kubeconfig", bad})
		if r.code != 2 || !strings.Contains(string(r.stderr), "cannot reach the API server") || !strings.Contains(string(r.stderr), "127.0.0.1:1") {
			t.Errorf("exit %d, stderr %s", r.code, r.stderr)
		}
	})

	t.Run("an EC2NodeClass API version Karpenter v1.15 does not serve", func(t *testing.T) {
		crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
		name := "ec2nodeclasses.karpenter.k8s.aws"
		if err := cl.dyn.Resource(crdGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		old := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]interface{}{"name": name},
			"spec": map[string]interface{}{
				"group": "karpenter.k8s.aws", "scope": "Cluster",
				"names": map[string]interface{}{"plural": "ec2nodeclasses", "singular": "ec2nodeclass", "kind": "EC2NodeClass", "listKind": "EC2NodeClassList"},
				"versions": []interface{}{map[string]interface{}{
					"name": "v1beta1", "served": true, "storage": true,
					"schema": map[string]interface{}{"openAPIV3Schema": map[string]interface{}{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				}},
			},
		}}
		// The old CRD goes once its deletion is finished; its replacement is then created.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			_, err := cl.dyn.Resource(crdGVR).Create(ctx, old, metav1.CreateOptions{})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("creating a v1beta1-only EC2NodeClass CRD: %v", err)
			}
			time.Sleep(time.Second)
		}
		want := "the cluster serves karpenter.k8s.aws at v1beta1 only; Karpenter v1.15 serves and nodecast reads karpenter.k8s.aws/v1 EC2NodeClass"
		var r result
		for time.Now().Before(deadline) {
			r = run(t, repo, nodecast, []string{"validate", "--kubeconfig", admin})
			if strings.Contains(string(r.stderr), want) {
				break
			}
			time.Sleep(time.Second) // discovery follows the new CRD within seconds
		}
		if r.code != 2 || !strings.Contains(string(r.stderr), want) {
			t.Errorf("exit %d, stderr %s", r.code, r.stderr)
		}
	})

	t.Run("unknown fields: the API server's strict field validation refuses the fields nodecast names", func(t *testing.T) {
		strictFieldsAgree(ctx, t, cl, repo, nodecast, "examples/docs/misspelt.yaml")
		strictFieldsAgree(ctx, t, cl, repo, nodecast, "examples/live/misspelt.yaml")
	})
}

// sameAnswer compares two JSON answers, "" when equal. Set aside, and only these: the input
// names (`source`: a file's path vs the snapshot's or cluster's name). Anything else the API
// server adds that changes an answer is a difference, reported.
func sameAnswer(files, live []byte) string {
	var a, b interface{}
	if err := json.Unmarshal(files, &a); err != nil {
		return "files: " + err.Error()
	}
	if err := json.Unmarshal(live, &b); err != nil {
		return "live: " + err.Error()
	}
	a, b = dropSources(a), dropSources(b)
	if reflect.DeepEqual(a, b) {
		return ""
	}
	ja, _ := json.MarshalIndent(a, "", " ")
	jb, _ := json.MarshalIndent(b, "", " ")
	la, lb := strings.Split(string(ja), "\n"), strings.Split(string(jb), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "first difference at line " + strconv.Itoa(i+1) + ": files " + strings.TrimSpace(la[i]) + " / live " + strings.TrimSpace(lb[i])
		}
	}
	return "one answer is a prefix of the other"
}

// claimZones: the zones of a plan answer's NodeClaims, in order.
func claimZones(t *testing.T, answer []byte) []string {
	t.Helper()
	var a struct {
		NodeClaims []struct {
			Zone string `json:"zone"`
		} `json:"nodeClaims"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		t.Fatalf("a plan answer: %v", err)
	}
	var out []string
	for _, c := range a.NodeClaims {
		out = append(out, c.Zone)
	}
	return out
}

// withoutServerObjects: a Validation answer's `objects` less the objects the API server made
// itself and nodecast read (the PriorityClasses every cluster has, system-cluster-critical and
// system-node-critical, bootstrapped by kube-apiserver); other answers as they are.
func withoutServerObjects(t *testing.T, answer, snapshot []byte) []byte {
	t.Helper()
	var a map[string]interface{}
	if err := json.Unmarshal(answer, &a); err != nil || a["kind"] != "Validation" {
		return answer
	}
	var list struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(snapshot, &list); err != nil {
		t.Fatalf("the snapshot: %v", err)
	}
	made := 0
	for _, it := range list.Items {
		if it.Kind == "PriorityClass" && (it.Metadata.Name == "system-cluster-critical" || it.Metadata.Name == "system-node-critical") {
			made++
		}
	}
	if n, ok := a["objects"].(float64); ok {
		a["objects"] = n - float64(made)
	}
	out, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dropSources(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		delete(x, "source")
		for k, e := range x {
			x[k] = dropSources(e)
		}
	case []interface{}:
		for i, e := range x {
			x[i] = dropSources(e)
		}
	}
	return v
}

type result struct {
	code           int
	stdout, stderr []byte
}

func run(t *testing.T, dir, bin string, args []string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s %v: %v", bin, args, err)
	}
	return result{code, out.Bytes(), errb.Bytes()}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kubeconfig writes a kubeconfig (context "envtest") for a user of the control plane.
func kubeconfig(t *testing.T, env *envtest.Environment, u envtest.User, path string) string {
	t.Helper()
	user, err := env.AddUser(u, nil)
	if err != nil {
		t.Fatalf("adding user %s: %v", u.Name, err)
	}
	b, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// applier creates manifests' objects as `kubectl create` would, then writes their `status`
// through the status subresource (a create drops it), as the controllers would have.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

type createdObject struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

func newApplier(t *testing.T, cfg *rest.Config) *applier {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (a *applier) apply(ctx context.Context, t *testing.T, paths []string) []createdObject {
	t.Helper()
	var out []createdObject
	for _, p := range paths {
		for i, obj := range decodeObjects(t, p) {
			c, err := a.create(ctx, obj)
			if err != nil {
				// What was created goes first: left behind, it would be read by the next cases
				// (a NodePool without limits left by a refused export once showed up as the
				// inference pools' "limits: {}").
				a.remove(ctx, t, out)
				t.Fatalf("%s: object %d (%s %s): %v", p, i, obj.GetKind(), obj.GetName(), err)
			}
			out = append(out, c)
		}
	}
	return out
}

func (a *applier) create(ctx context.Context, obj *unstructured.Unstructured) (createdObject, error) {
	return a.createWith(ctx, obj, metav1.CreateOptions{})
}

func (a *applier) createWith(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions) (createdObject, error) {
	gvk := obj.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		a.mapper.Reset()
		if mapping, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return createdObject{}, err
		}
	}
	var ri dynamic.ResourceInterface = a.dyn.Resource(mapping.Resource)
	ns := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns = obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		obj.SetNamespace(ns)
		a.namespace(ctx, ns)
		ri = a.dyn.Resource(mapping.Resource).Namespace(ns)
	}
	status, hasStatus := obj.Object["status"]
	obj.SetResourceVersion("")
	made, err := ri.Create(ctx, obj, opts)
	if err != nil {
		return createdObject{}, err
	}
	if hasStatus {
		made.Object["status"] = status
		if _, err := ri.UpdateStatus(ctx, made, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return createdObject{}, err
		}
	}
	return createdObject{mapping.Resource, ns, obj.GetName()}, nil
}

func (a *applier) namespace(ctx context.Context, ns string) {
	gvr := corev1.SchemeGroupVersion.WithResource("namespaces")
	n := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": ns}}}
	_, _ = a.dyn.Resource(gvr).Create(ctx, n, metav1.CreateOptions{})
}

// remove deletes what a case created, at once (no kubelet is there to finish a graceful
// deletion) and in the background (no garbage collector runs to remove the `orphan` finalizer a
// Job's default deletion would add), then waits until each is gone, so that the next case can
// create an object of the same name. Namespaces stay (no controller empties them); nodecast does
// not read them.
func (a *applier) remove(ctx context.Context, t *testing.T, objs []createdObject) {
	zero := int64(0)
	background := metav1.DeletePropagationBackground
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		err := a.dyn.Resource(o.gvr).Namespace(o.namespace).Delete(ctx, o.name, metav1.DeleteOptions{GracePeriodSeconds: &zero, PropagationPolicy: &background})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s %s/%s: %v", o.gvr.Resource, o.namespace, o.name, err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for _, o := range objs {
		for {
			_, err := a.dyn.Resource(o.gvr).Namespace(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s/%s is still there a minute after its deletion (err %v)", o.gvr.Resource, o.namespace, o.name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// decodeObjects reads a YAML/JSON stream; a `kind: List` gives its items.
func decodeObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]interface{}
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return out
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "List" {
			items, _, _ := unstructured.NestedSlice(m, "items")
			for _, it := range items {
				if im, ok := it.(map[string]interface{}); ok {
					out = append(out, &unstructured.Unstructured{Object: im})
				}
			}
			continue
		}
		out = append(out, u)
	}
}

// strictFieldsAgree (SF-01): each object of `file`, created with fieldValidation=Strict (what
// kubectl asks for by default), is refused, and the fields the API server names are the ones
// `nodecast validate` names for that document. Created with fieldValidation=Warn it is stored
// without them: the answer nodecast refuses to give is the one for an object that does not exist.
func strictFieldsAgree(ctx context.Context, t *testing.T, cl *applier, repo, nodecast, file string) {
	r := run(t, repo, nodecast, []string{"validate", file, "-o", "json"})
	if r.code != 1 {
		t.Fatalf("nodecast validate %s: exit %d, want 1\n%s", file, r.code, r.stderr)
	}
	var answer struct {
		Errors []struct {
			Code     string `json:"code"`
			Document int    `json:"document"`
			Path     string `json:"path"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.stdout, &answer); err != nil {
		t.Fatal(err)
	}
	named := map[int][]string{}
	for _, e := range answer.Errors {
		if e.Code != "unknown-field" {
			t.Errorf("nodecast: %s at document %d %s, want only unknown-field errors", e.Code, e.Document, e.Path)
		}
		named[e.Document] = append(named[e.Document], e.Path)
	}
	unknown := regexp.MustCompile(`unknown field "([^"]+)"`)
	for i, obj := range decodeObjects(t, filepath.Join(repo, file)) {
		_, err := cl.createWith(ctx, obj.DeepCopy(), metav1.CreateOptions{FieldValidation: "Strict"})
		if err == nil {
			t.Fatalf("document %d (%s %s): the API server took it with fieldValidation=Strict", i, obj.GetKind(), obj.GetName())
		}
		var server []string
		for _, m := range unknown.FindAllStringSubmatch(err.Error(), -1) {
			server = append(server, strings.TrimPrefix(m[1], "."))
		}
		sort.Strings(server)
		t.Logf("document %d (%s %s), fieldValidation=Strict: %v", i, obj.GetKind(), obj.GetName(), err)
		ours := append([]string(nil), named[i]...)
		sort.Strings(ours)
		if !reflect.DeepEqual(server, ours) {
			t.Errorf("document %d (%s %s): the API server names %q, nodecast %q\n(server: %v)", i, obj.GetKind(), obj.GetName(), server, ours, err)
		}
		made, err := cl.createWith(ctx, obj.DeepCopy(), metav1.CreateOptions{FieldValidation: "Warn"})
		if err != nil {
			t.Fatalf("document %d with fieldValidation=Warn: %v", i, err)
		}
		stored, err := cl.dyn.Resource(made.gvr).Namespace(made.namespace).Get(ctx, made.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(stored.Object)
		for _, p := range ours {
			leaf := p[strings.LastIndex(p, ".")+1:]
			if bytes.Contains(raw, []byte(`"`+leaf+`"`)) {
				t.Errorf("document %d: %s is stored with fieldValidation=Warn: %s", i, p, raw)
			}
		}
		cl.remove(ctx, t, []createdObject{made})
	}
}
