package main

// Reading a conformance-format scenario (shared/conformance/FORMAT.md) into Kubernetes objects.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	autoscalingv1beta1 "sigs.k8s.io/karpenter/pkg/apis/autoscaling/v1beta1"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
)

// Scenario is one scenario file entry (FORMAT.md), or one entry of examples/expectations.yaml.
type Scenario struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Catalog any    `json:"catalog"`
	Clock   struct {
		Now string `json:"now"`
	} `json:"clock"`
	Settings map[string]any `json:"settings"`
	Objects  string         `json:"objects"`
	Files    []string       `json:"files"`
	// Dir is where `files` are resolved.
	Dir string `json:"-"`
	// dra: the AWS provider's DRA templates per instance type from nodecast's line (dra.go).
	dra map[string][]DraTemplate
	// hostnameless: Nodes without kubernetes.io/hostname keep none on the Karpenter side (the
	// state of Karpenter's own suites, whose fake Nodes have none: oracle suite -prove-ties).
	// Otherwise the harness labels them with their name, as a kubelet does and nodecast assumes.
	hostnameless bool
}

// LoadScenarios reads a file holding one scenario or a list of them.
func LoadScenarios(path string) ([]*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var list []*Scenario
	if strings.HasPrefix(strings.TrimSpace(string(js)), "[") {
		if err := yaml.Unmarshal(js, &list); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		var s Scenario
		if err := yaml.Unmarshal(js, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if s.Name == "" {
			s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		list = []*Scenario{&s}
	}
	for _, s := range list {
		s.Dir = filepath.Dir(path)
	}
	return list, nil
}

// Objects are the typed manifests of a scenario, workloads already expanded into pods.
type Objects struct {
	NodePools  []*v1.NodePool
	NodeClaims []*v1.NodeClaim
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod // pending and bound
	DaemonSets []*appsv1.DaemonSet
	PDBs       []*policyv1.PodDisruptionBudget
	Overlays   []*v1alpha1.NodeOverlay
	// PDBs whose manifest states status.disruptionsAllowed (FORMAT.md §3.5), by namespace/name.
	ExplicitPDB map[string]bool
	// EC2NodeClasses (their capacity reservation selector terms) and the capacity reservations of
	// describe-capacity-reservations documents (issue 38; reserved.go).
	NodeClasses  []*EC2NodeClass
	Reservations []*CapacityReservation
	// The EC2NodeClass each NodePool references (read before the harness swaps in the fake class).
	PoolNodeClass map[string]string
	// resource.k8s.io/v1 objects (DRA, issue 28; dra.go).
	DeviceClasses  []*resourcev1.DeviceClass
	ResourceClaims []*resourcev1.ResourceClaim
	ClaimTemplates []*resourcev1.ResourceClaimTemplate
	ResourceSlices []*resourcev1.ResourceSlice
	// CapacityBuffers and what they refer to (CapacityBuffer gate, issue 28; buffer.go): the
	// buffers, the PodTemplates of their podTemplateRef, and the Deployments as objects (their
	// pods are expanded as always; a scalableRef reads the Deployment's template and replicas).
	Buffers      []*autoscalingv1beta1.CapacityBuffer
	PodTemplates []*corev1.PodTemplate
	Deployments  []*appsv1.Deployment
	// Services, ReplicaSets, StatefulSets and ReplicationControllers: what Karpenter deduces a
	// default topology spread's selector from (--scheduler-config; scheduling/defaultconstraints.go
	// lists Services and gets the pod's controller).
	Owners []client.Object
}

var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

func (s *Scenario) texts() ([]string, error) {
	var out []string
	if s.Objects != "" {
		out = append(out, s.Objects)
	}
	for _, f := range s.Files {
		b, err := os.ReadFile(filepath.Join(s.Dir, f))
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// ParseObjects reads every manifest; unknown kinds are ignored (FORMAT.md §3).
func (s *Scenario) ParseObjects() (*Objects, error) {
	texts, err := s.texts()
	if err != nil {
		return nil, err
	}
	o := &Objects{}
	for _, t := range texts {
		for _, doc := range docSep.Split(t, -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var head struct {
				Kind string `json:"kind"`
				// aws ec2 describe-capacity-reservations output: no kind, a top-level list.
				CapacityReservations []*CapacityReservation `json:"CapacityReservations"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return nil, err
			}
			if head.Kind == "" && head.CapacityReservations != nil {
				o.Reservations = append(o.Reservations, head.CapacityReservations...)
				continue
			}
			if err := o.add(head.Kind, []byte(doc)); err != nil {
				return nil, fmt.Errorf("%s: %w", head.Kind, err)
			}
		}
	}
	return o, nil
}

func ns(n string) string {
	if n == "" {
		return "default"
	}
	return n
}

func (o *Objects) add(kind string, doc []byte) error {
	switch kind {
	case "NodePool":
		var np v1.NodePool
		if err := yaml.Unmarshal(doc, &np); err != nil {
			return err
		}
		// `Never` decodes to an empty NillableDuration, like an absent field; mark it so that the
		// CRD defaults (applied later) do not replace it.
		var raw struct {
			Spec struct {
				Disruption struct {
					ConsolidateAfter string `json:"consolidateAfter"`
				} `json:"disruption"`
				Template struct {
					Spec struct {
						ExpireAfter string `json:"expireAfter"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(doc, &raw); err == nil {
			if raw.Spec.Disruption.ConsolidateAfter == v1.Never {
				np.Spec.Disruption.ConsolidateAfter.Raw = []byte(`"Never"`)
			}
			if raw.Spec.Template.Spec.ExpireAfter == v1.Never {
				np.Spec.Template.Spec.ExpireAfter.Raw = []byte(`"Never"`)
			}
		}
		o.NodePools = append(o.NodePools, &np)
		if o.PoolNodeClass == nil {
			o.PoolNodeClass = map[string]string{}
		}
		if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
			o.PoolNodeClass[np.Name] = ref.Name
		}
	case "EC2NodeClass":
		var nc EC2NodeClass
		if err := yaml.Unmarshal(doc, &nc); err != nil {
			return err
		}
		o.NodeClasses = append(o.NodeClasses, &nc)
	case "NodeOverlay":
		var ov v1alpha1.NodeOverlay
		if err := yaml.Unmarshal(doc, &ov); err != nil {
			return err
		}
		o.Overlays = append(o.Overlays, &ov)
	case "NodeClaim":
		var nc v1.NodeClaim
		if err := yaml.Unmarshal(doc, &nc); err != nil {
			return err
		}
		o.NodeClaims = append(o.NodeClaims, &nc)
	case "Node":
		var n corev1.Node
		if err := yaml.Unmarshal(doc, &n); err != nil {
			return err
		}
		o.Nodes = append(o.Nodes, &n)
	case "Pod":
		var p corev1.Pod
		if err := yaml.Unmarshal(doc, &p); err != nil {
			return err
		}
		p.Namespace = ns(p.Namespace)
		o.Pods = append(o.Pods, &p)
	case "Deployment":
		var d appsv1.Deployment
		if err := yaml.Unmarshal(doc, &d); err != nil {
			return err
		}
		n := int32(1)
		if d.Spec.Replicas != nil {
			n = *d.Spec.Replicas
		}
		o.expand(d.ObjectMeta, &d.Spec.Template, int(n), "ReplicaSet")
		d.Namespace = ns(d.Namespace)
		o.Deployments = append(o.Deployments, &d)
	case "CapacityBuffer":
		var b autoscalingv1beta1.CapacityBuffer
		if err := yaml.Unmarshal(doc, &b); err != nil {
			return err
		}
		b.Namespace = ns(b.Namespace)
		o.Buffers = append(o.Buffers, &b)
	case "PodTemplate":
		var t corev1.PodTemplate
		if err := yaml.Unmarshal(doc, &t); err != nil {
			return err
		}
		t.Namespace = ns(t.Namespace)
		o.PodTemplates = append(o.PodTemplates, &t)
	case "Job":
		var j batchv1.Job
		if err := yaml.Unmarshal(doc, &j); err != nil {
			return err
		}
		n := int32(1)
		if j.Spec.Parallelism != nil {
			n = *j.Spec.Parallelism
		}
		if j.Spec.Completions != nil && *j.Spec.Completions < n {
			n = *j.Spec.Completions
		}
		o.expand(j.ObjectMeta, &j.Spec.Template, int(n), "Job")
	case "CronJob":
		// nodecast plans a CronJob's jobTemplate as one run of its Job.
		var c batchv1.CronJob
		if err := yaml.Unmarshal(doc, &c); err != nil {
			return err
		}
		j := c.Spec.JobTemplate.Spec
		n := int32(1)
		if j.Parallelism != nil {
			n = *j.Parallelism
		}
		if j.Completions != nil && *j.Completions < n {
			n = *j.Completions
		}
		o.expand(c.ObjectMeta, &j.Template, int(n), "Job")
	case "Service":
		var svc corev1.Service
		if err := yaml.Unmarshal(doc, &svc); err != nil {
			return err
		}
		svc.Namespace = ns(svc.Namespace)
		o.Owners = append(o.Owners, &svc)
	case "ReplicationController":
		var rc corev1.ReplicationController
		if err := yaml.Unmarshal(doc, &rc); err != nil {
			return err
		}
		rc.Namespace = ns(rc.Namespace)
		o.Owners = append(o.Owners, &rc)
	case "ReplicaSet", "StatefulSet":
		// As controllers whose pods the scenario lists itself (replicas 0, as the suite's
		// conversion writes them); the harness does not expand their replicas.
		var head struct {
			Spec struct {
				Replicas *int32 `json:"replicas"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return err
		}
		if head.Spec.Replicas == nil || *head.Spec.Replicas != 0 {
			return fmt.Errorf("the harness takes a %s only with spec.replicas: 0 (its pods listed as Pods)", kind)
		}
		if kind == "ReplicaSet" {
			var rs appsv1.ReplicaSet
			if err := yaml.Unmarshal(doc, &rs); err != nil {
				return err
			}
			rs.Namespace = ns(rs.Namespace)
			o.Owners = append(o.Owners, &rs)
		} else {
			var ss appsv1.StatefulSet
			if err := yaml.Unmarshal(doc, &ss); err != nil {
				return err
			}
			ss.Namespace = ns(ss.Namespace)
			o.Owners = append(o.Owners, &ss)
		}
	case "DaemonSet":
		var d appsv1.DaemonSet
		if err := yaml.Unmarshal(doc, &d); err != nil {
			return err
		}
		d.Namespace = ns(d.Namespace)
		o.DaemonSets = append(o.DaemonSets, &d)
	case "DeviceClass":
		var d resourcev1.DeviceClass
		if err := yaml.Unmarshal(doc, &d); err != nil {
			return err
		}
		o.DeviceClasses = append(o.DeviceClasses, &d)
	case "ResourceClaim":
		var c resourcev1.ResourceClaim
		if err := yaml.Unmarshal(doc, &c); err != nil {
			return err
		}
		c.Namespace = ns(c.Namespace)
		o.ResourceClaims = append(o.ResourceClaims, &c)
	case "ResourceClaimTemplate":
		var t resourcev1.ResourceClaimTemplate
		if err := yaml.Unmarshal(doc, &t); err != nil {
			return err
		}
		t.Namespace = ns(t.Namespace)
		o.ClaimTemplates = append(o.ClaimTemplates, &t)
	case "ResourceSlice":
		var sl resourcev1.ResourceSlice
		if err := yaml.Unmarshal(doc, &sl); err != nil {
			return err
		}
		o.ResourceSlices = append(o.ResourceSlices, &sl)
	case "PodDisruptionBudget":
		var p policyv1.PodDisruptionBudget
		if err := yaml.Unmarshal(doc, &p); err != nil {
			return err
		}
		p.Namespace = ns(p.Namespace)
		o.PDBs = append(o.PDBs, &p)
		var raw struct {
			Status map[string]any `json:"status"`
		}
		if err := yaml.Unmarshal(doc, &raw); err == nil {
			if _, ok := raw.Status["disruptionsAllowed"]; ok {
				if o.ExplicitPDB == nil {
					o.ExplicitPDB = map[string]bool{}
				}
				o.ExplicitPDB[p.Namespace+"/"+p.Name] = true
			}
		}
	}
	return nil
}

// expand turns a workload into its pending pods `<name>-0` … (FORMAT.md §3.4).
func (o *Objects) expand(owner metav1.ObjectMeta, t *corev1.PodTemplateSpec, n int, ownerKind string) {
	namespace := ns(owner.Namespace)
	for i := 0; i < n; i++ {
		p := &corev1.Pod{ObjectMeta: *t.ObjectMeta.DeepCopy(), Spec: *t.Spec.DeepCopy()}
		p.Name = fmt.Sprintf("%s-%d", owner.Name, i)
		p.Namespace = namespace
		// nodecast gives a generated pod its workload's creation time.
		p.CreationTimestamp = owner.CreationTimestamp
		// nodecast names a generated pod's UID "<namespace>/<name>" (whatever the template
		// says); Karpenter's queue breaks ties by UID, so the Karpenter side gets the same one.
		p.UID = types.UID(namespace + "/" + p.Name)
		o.Pods = append(o.Pods, p)
	}
	_ = ownerKind
}
