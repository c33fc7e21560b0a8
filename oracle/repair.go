package main

// Node repair on the Karpenter side (issue 28): the AWS provider v1.15.0's repair policies
// (karpenter-provider-aws pkg/cloudprovider/cloudprovider.go `RepairPolicies`, its current set:
// the legacy one is behind a provider option nodecast does not take), given to the fake cloud
// provider; Karpenter's own matcher (pkg/controllers/node/health/policy.go) and Repair
// disruption method (pkg/controllers/disruption/repair.go) do the rest. With the provider's
// RebootForRepair gate off (its default) the transient-XID policy replaces, as every other one.

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

func awsRepairPolicies() []cloudprovider.RepairPolicy {
	grace := func(m time.Duration) *time.Duration { d := m * time.Minute; return &d }
	policy := func(typ corev1.NodeConditionType, st corev1.ConditionStatus, reason string, toleration, drain time.Duration) cloudprovider.RepairPolicy {
		return cloudprovider.RepairPolicy{ConditionType: typ, ConditionStatus: st, ReasonRegex: reason,
			TolerationDuration: toleration * time.Minute, TerminationGracePeriod: grace(drain), Action: cloudprovider.ReplaceNode}
	}
	return []cloudprovider.RepairPolicy{
		policy(corev1.NodeReady, corev1.ConditionFalse, ".*", 30, 10),
		policy(corev1.NodeReady, corev1.ConditionUnknown, ".*", 30, 10),
		policy("AcceleratedHardwareReady", corev1.ConditionFalse, `.*XID(46|48|54|62|63|95|109|110|136|140|143|155|156|158).*`, 10, 5),
		policy("AcceleratedHardwareReady", corev1.ConditionFalse, `.*XID(64|74|79|119|120).*`, 10, 5),
		// The set's one fallback: an empty reason pattern.
		policy("AcceleratedHardwareReady", corev1.ConditionFalse, "", 30, 10),
		policy("StorageReady", corev1.ConditionFalse, ".*", 30, 10),
		policy("NetworkingReady", corev1.ConditionFalse, ".*", 30, 10),
		policy("KernelReady", corev1.ConditionFalse, ".*", 30, 10),
		policy("ContainerRuntimeReady", corev1.ConditionFalse, ".*", 30, 10),
	}
}
