package main

import (
	"strings"
	"testing"
)

// The controller's NodeClaim is matched by its own launch set: a launch from that set (the first
// type and zone by name, with the set's reservation), whatever the fake provider picked.
func TestClaimAsLaunchSetTakesALaunchOfItsOwnSet(t *testing.T) {
	c := Claim{InstanceType: "g6.xlarge", CapacityType: "on-demand", Zone: "us-east-1a", Launch: &Launch{
		CapacityType: "spot",
		Types:        map[string][]string{"g6.xlarge": {"us-east-1c", "us-east-1b"}, "g5.xlarge": {"us-east-1c"}},
		Reservations: map[string]string{"g5.xlarge/us-east-1c": "cr-1"},
	}}
	got := claimAsLaunchSet(c)
	if got.InstanceType != "g5.xlarge" || got.Zone != "us-east-1c" || got.CapacityType != "spot" || got.ReservationID != "cr-1" {
		t.Fatalf("claimAsLaunchSet = %s %s %s %q", got.InstanceType, got.Zone, got.CapacityType, got.ReservationID)
	}
	if !launchOK(got, c) {
		t.Fatal("the chosen launch is not in the claim's own launch set")
	}
	if launchOK(c, c) {
		t.Fatal("the fake provider's on-demand pick should be outside a spot launch set (the case this exists for)")
	}
	if bare := (Claim{InstanceType: "x"}); claimAsLaunchSet(bare).InstanceType != "x" {
		t.Fatal("a claim without a launch set is left as it is")
	}
}

// Each answer of the two questions reads as one class.
func TestTwoWaysVerdicts(t *testing.T) {
	for _, c := range []struct {
		w    twoWays
		want string
	}{
		{twoWays{NodecastRun: 1, ControllerRun: 3, Runs: 3}, "tie ("},
		{twoWays{NodecastRun: 1, ControllerRun: 2, Runs: 126, RandomUIDs: true}, "pod order ("},
		{twoWays{NodecastRun: 2, Runs: 400}, "batching or timing ("},
		{twoWays{ControllerRun: 1, Runs: 24}, "nodecast differs ("},
		{twoWays{Runs: 24}, "mixed ("},
		{twoWays{Err: "boom"}, "in-process error: boom"},
	} {
		if got := c.w.verdict(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: verdict %q, want prefix %q", c.w, got, c.want)
		}
	}
}
