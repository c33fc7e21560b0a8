package main

// DRA on the Karpenter side (issue 28): the resource.k8s.io objects of a scenario in the fake
// client, the claims Kubernetes' resourceclaim controller would generate from templates, the
// AWS provider's ResourceSlice templates as the instance types' DynamicResources, and
// Karpenter's own device-allocation controller (pkg/controllers/dynamicresources/deviceallocation)
// feeding its allocator (pkg/scheduling/dynamicresources) through Provisioner.Schedule.

import (
	"fmt"
	"sort"
	"unique"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// DraTemplate is one ResourceSlice template of nodecast's oracle line (tests/conformance
// oracle.rs `dra_json`): the AWS provider's nvidiadra / efadra templates for a new node.
type DraTemplate struct {
	Driver  string `json:"driver"`
	Pool    string `json:"pool"`
	Devices []struct {
		Name       string `json:"name"`
		Attributes map[string]struct {
			String  *string `json:"string"`
			Int     *int64  `json:"int"`
			Bool    *bool   `json:"bool"`
			Version *string `json:"version"`
		} `json:"attributes"`
		Capacity map[string]string `json:"capacity"`
	} `json:"devices"`
}

// dynamicResources converts the templates of one instance type. The provider's attribute
// bindings (driverVersion, cudaDriverVersion) only serve matchAttribute constraints, which the
// generator never writes and nodecast refuses with a located error, so they are left out.
func dynamicResources(ts []DraTemplate) (cloudprovider.DynamicResources, error) {
	var out cloudprovider.DynamicResources
	for _, t := range ts {
		tp := &cloudprovider.ResourceSliceTemplate{Driver: unique.Make(t.Driver), Pool: cloudprovider.ResourcePool{Name: unique.Make(t.Pool)}}
		for _, d := range t.Devices {
			dev := cloudprovider.Device{Name: unique.Make(d.Name), Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{},
				Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{}}
			for k, v := range d.Attributes {
				dev.Attributes[resourcev1.QualifiedName(k)] = resourcev1.DeviceAttribute{StringValue: v.String, IntValue: v.Int, BoolValue: v.Bool, VersionValue: v.Version}
			}
			for k, q := range d.Capacity {
				qty, err := resource.ParseQuantity(q)
				if err != nil {
					return out, fmt.Errorf("dra template %s/%s device %s capacity %s: %w", t.Driver, t.Pool, d.Name, k, err)
				}
				dev.Capacity[resourcev1.QualifiedName(k)] = resourcev1.DeviceCapacity{Value: qty}
			}
			tp.Devices = append(tp.Devices, dev)
		}
		out.ResourceSliceTemplates = append(out.ResourceSliceTemplates, tp)
	}
	return out, nil
}

// withDynamicResources returns the instance types with the templates set, as the AWS provider's
// `populateDynamicResources` does on the types it lists (copies: the cached lists are shared
// between scenarios).
func withDynamicResources(its cloudprovider.InstanceTypes, dra map[string][]DraTemplate) (cloudprovider.InstanceTypes, error) {
	if len(dra) == 0 {
		return its, nil
	}
	out := make(cloudprovider.InstanceTypes, len(its))
	for i, it := range its {
		ts, ok := dra[it.Name]
		if !ok {
			out[i] = it
			continue
		}
		dr, err := dynamicResources(ts)
		if err != nil {
			return nil, err
		}
		// A new value, not a copy of *it (its lazily computed allocatable state must not be shared).
		out[i] = &cloudprovider.InstanceType{Name: it.Name, Requirements: it.Requirements, Offerings: it.Offerings, Capacity: it.Capacity,
			VolumeAttachmentLimits: it.VolumeAttachmentLimits, Overhead: it.Overhead, DynamicResources: dr}
	}
	return out, nil
}

// generateTemplateClaims plays Kubernetes' resourceclaim controller for pods not yet bound: a
// pod's `resourceClaimTemplateName` entry gets its own ResourceClaim made from the template's
// spec, owned by the pod, and the pod's `status.resourceClaimStatuses` names it (Karpenter's
// scheduler reads the claim through that status: scheduling/dra.go resourceClaimName; without
// it the claim is skipped, which a real cluster never shows the scheduler for long). nodecast
// treats a template claim the same way: one claim per pod, from the template's spec. A template
// the input does not hold is an error (nodecast refuses it as well).
func (o *Objects) generateTemplateClaims() error {
	templates := map[string]*resourcev1.ResourceClaimTemplate{}
	for _, t := range o.ClaimTemplates {
		defaultClaimSpec(&t.Spec.Spec)
		templates[t.Namespace+"/"+t.Name] = t
	}
	for _, c := range o.ResourceClaims {
		defaultClaimSpec(&c.Spec)
	}
	for _, p := range o.Pods {
		if p.Spec.NodeName != "" {
			// A bound pod's generated claim is in the input (allocated), as in a real cluster.
			continue
		}
		for _, pc := range p.Spec.ResourceClaims {
			if pc.ResourceClaimTemplateName == nil {
				continue
			}
			t := templates[p.Namespace+"/"+*pc.ResourceClaimTemplateName]
			if t == nil {
				return fmt.Errorf("pod %s/%s: ResourceClaimTemplate %q not in the scenario", p.Namespace, p.Name, *pc.ResourceClaimTemplateName)
			}
			name := p.Name + "-" + pc.Name
			c := &resourcev1.ResourceClaim{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace, Labels: t.Spec.Labels, Annotations: t.Spec.Annotations,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, Controller: ptrTrue()}}},
				Spec: *t.Spec.Spec.DeepCopy(),
			}
			o.ResourceClaims = append(o.ResourceClaims, c)
			p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, corev1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &c.Name})
		}
	}
	return nil
}

func ptrTrue() *bool { t := true; return &t }

// defaultClaimSpec applies the API server's defaults to a claim spec (Kubernetes
// pkg/apis/resource/v1/defaults.go): a request's allocationMode ExactCount, and count 1 in that
// mode, also for each firstAvailable subrequest. The fake client applies no defaults, and
// Karpenter's allocator reads count 0 as "no device needed".
func defaultClaimSpec(spec *resourcev1.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			if r.Exactly.AllocationMode == "" {
				r.Exactly.AllocationMode = resourcev1.DeviceAllocationModeExactCount
			}
			if r.Exactly.AllocationMode == resourcev1.DeviceAllocationModeExactCount && r.Exactly.Count == 0 {
				r.Exactly.Count = 1
			}
		}
		for j := range r.FirstAvailable {
			sr := &r.FirstAvailable[j]
			if sr.AllocationMode == "" {
				sr.AllocationMode = resourcev1.DeviceAllocationModeExactCount
			}
			if sr.AllocationMode == resourcev1.DeviceAllocationModeExactCount && sr.Count == 0 {
				sr.Count = 1
			}
		}
	}
}

// createDRA puts the resource.k8s.io objects in the fake client (claims with their status as the
// scenario states it: the device-allocation controller reads allocations and reservedFor).
func (e *Env) createDRA() error {
	for _, d := range e.objs.DeviceClasses {
		if err := e.create(d); err != nil {
			return err
		}
	}
	for _, t := range e.objs.ClaimTemplates {
		if err := e.create(t); err != nil {
			return err
		}
	}
	// Sorted, so that runs create them in one order.
	claims := append([]*resourcev1.ResourceClaim(nil), e.objs.ResourceClaims...)
	sort.Slice(claims, func(i, j int) bool {
		return claims[i].Namespace+"/"+claims[i].Name < claims[j].Namespace+"/"+claims[j].Name
	})
	// load gives each pod the UID `metadata.uid` + NUL + `namespace/name` (Karpenter's queue
	// order); a claim's reservedFor names its pods by UID, and the DRA allocator frees the devices
	// of claims whose reserving pods all move (disruption's deletingPodUIDs), so the references
	// get the same UID. A reference to no pod of the input keeps its UID.
	podUID := map[string]string{}
	for _, p := range e.objs.Pods {
		podUID[p.Namespace+"/"+p.Name] = string(p.UID)
	}
	for _, c := range claims {
		for i := range c.Status.ReservedFor {
			ref := &c.Status.ReservedFor[i]
			key := c.Namespace + "/" + ref.Name
			if uid, ok := podUID[key]; ok && ref.Resource == "pods" && ref.APIGroup == "" && uid != "" && uid == string(ref.UID) {
				ref.UID = types.UID(uid + "\x00" + key)
			}
		}
	}
	for _, c := range claims {
		if err := e.create(c); err != nil {
			return err
		}
	}
	for _, s := range e.objs.ResourceSlices {
		if err := e.create(s); err != nil {
			return err
		}
	}
	return nil
}
