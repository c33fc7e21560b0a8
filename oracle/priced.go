package main

// Scenarios with the user's prices and places (issue 31): `aws ec2 describe-spot-price-history`,
// `describe-instance-type-offerings` and on-demand price documents among a scenario's objects
// change its instance types' on-demand and spot offerings (prices, and which zones are
// available). nodecast resolves them (core/src/catalog/prices.rs) and prints, in the scenario's
// line, the offerings of every type whose offerings differ from the catalog line; the Karpenter
// side swaps them in here, so Karpenter schedules and consolidates on exactly those prices while
// the catalog line stays shared by every scenario on the spec.

import (
	"k8s.io/apimachinery/pkg/util/sets"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// WithOfferings is the catalog with a scenario's own on-demand and spot offerings swapped in
// (types not in `offs` are shared with `c`).
func (c *Catalog) WithOfferings(offs map[string][]CatalogOffering) *Catalog {
	if len(offs) == 0 {
		return c
	}
	out := *c
	out.Types = make([]CatalogType, len(c.Types))
	copy(out.Types, c.Types)
	for i, t := range out.Types {
		if o, ok := offs[t.Name]; ok {
			out.Types[i].Offerings = o
		}
	}
	return &out
}

// pricedCache: Karpenter's instance types of one priced scenario (its re-runs reuse them), a
// bounded cache emptied when full, as reservedCache.
var pricedCache = map[string]cloudprovider.InstanceTypes{}

// pricedTypes is `base` (the catalog line's types) with the types whose offerings the scenario
// changed rebuilt from `priced`.
func pricedTypes(base cloudprovider.InstanceTypes, priced *Catalog, offs map[string][]CatalogOffering, key string) cloudprovider.InstanceTypes {
	if its, ok := pricedCache[key]; ok {
		return its
	}
	if len(pricedCache) >= 8 {
		pricedCache = map[string]cloudprovider.InstanceTypes{}
	}
	keys := sets.List(priced.LabelKeys())
	out := make(cloudprovider.InstanceTypes, len(base))
	copy(out, base)
	for i, t := range priced.Types {
		if _, ok := offs[t.Name]; ok {
			out[i] = priced.instanceType(t, keys, nil)
		}
	}
	pricedCache[key] = out
	return out
}
