package main

// Generated scenarios with the user's prices and places (issue 31): an ordinary provision
// (`prices`) or disruption (`pdisrupt`) scenario plus the documents a user prints with the AWS
// CLI — `describe-spot-price-history` (latest price per type × zone, older records, records of
// another product, zones without a price), sometimes `describe-instance-type-offerings` (a type
// offered in only some zones, or in a zone outside the catalog) and an on-demand price list.
// nodecast resolves them into its offerings and the Karpenter side is handed those offerings
// (priced.go), so Karpenter's own ordering by price, truncation and consolidation run on the
// same real-looking spot prices. Own random stream: the other kinds are unchanged.

import (
	"fmt"
	"sort"
	"time"
)

// pricedTypeNames: the types the generator's pools tend to launch, plus cheap general ones an
// unconstrained pool picks.
func pricedTypeNames() []string {
	var out []string
	for _, fam := range []map[string][]string{gpuFamilies, cpuFamilies} {
		for _, f := range keys(fam) {
			out = append(out, fam[f]...)
		}
	}
	out = append(out, "t3.medium", "t3a.large", "m7i.large", "c7i.large", "m6a.large", "c5.large", "r5.large", "c6g.large", "m7g.large", "g5.8xlarge")
	sort.Strings(out)
	return out
}

func generatePrices(kind string, seed int64) (string, error) {
	base := map[string]string{"prices": "provision", "pdisrupt": "disrupt"}[kind]
	return generateBasic(kind, base, seed, seed*7919+11+map[string]int64{"prices": 0, "pdisrupt": 1}[kind], func(g *gen) {
		g.spotPriceHistory()
		if g.chance(0.5) {
			g.typeOfferings()
		}
		if g.chance(0.3) {
			g.onDemandPrices()
		}
	})
}

func (g *gen) price(x float64) string { return fmt.Sprintf("%.6f", x) }

func (g *gen) spotPriceHistory() {
	var records []any
	record := func(it, zone, product string, price float64, at time.Time) {
		records = append(records, map[string]any{"AvailabilityZone": zone, "InstanceType": it, "ProductDescription": product,
			"SpotPrice": g.price(price), "Timestamp": at.Format(time.RFC3339)})
	}
	for _, it := range pricedTypeNames() {
		t := awsTypes[it]
		if t == nil || !g.chance(0.75) {
			continue
		}
		for _, z := range g.zones {
			if !g.chance(0.85) {
				continue // no spot price here: no spot offering in this zone
			}
			factor := 0.12 + 0.63*g.r.Float64()
			if g.chance(0.05) {
				factor = 1.05 + 0.3*g.r.Float64() // spot above on-demand happens
			}
			at := g.now.Add(-time.Duration(g.r.Intn(72)) * time.Hour)
			record(it, z, g.pick("Linux/UNIX", "Linux/UNIX (Amazon VPC)"), t.Price*factor, at)
			if g.chance(0.25) { // an older record with another price: not the one used
				record(it, z, "Linux/UNIX", t.Price*(0.12+0.63*g.r.Float64()), at.Add(-time.Duration(1+g.r.Intn(48))*time.Hour))
			}
			if g.chance(0.1) { // another product: not read
				record(it, z, "Windows", t.Price*(0.5+g.r.Float64()), at.Add(time.Hour))
			}
		}
	}
	g.r.Shuffle(len(records), func(i, j int) { records[i], records[j] = records[j], records[i] })
	g.add(map[string]any{"SpotPriceHistory": records})
}

func (g *gen) typeOfferings() {
	var list []any
	zones := append([]string{}, g.zones...)
	if g.chance(0.3) {
		zones = append(zones, "us-east-1d") // outside the catalog's zones: not used
	}
	for _, it := range pricedTypeNames() {
		if !g.chance(0.5) {
			continue
		}
		n := 0
		for _, z := range zones {
			if g.chance(0.6) {
				list = append(list, map[string]any{"InstanceType": it, "LocationType": "availability-zone", "Location": z})
				n++
			}
		}
		if n == 0 {
			list = append(list, map[string]any{"InstanceType": it, "LocationType": "availability-zone", "Location": g.pick(g.zones...)})
		}
	}
	g.add(map[string]any{"InstanceTypeOfferings": list})
}

func (g *gen) onDemandPrices() {
	prices := map[string]any{}
	for _, it := range pricedTypeNames() {
		if t := awsTypes[it]; t != nil && g.chance(0.3) {
			prices[it] = g.price(t.Price * (0.8 + 0.4*g.r.Float64()))
		}
	}
	g.add(map[string]any{"region": "us-east-1", "onDemand": prices})
}
