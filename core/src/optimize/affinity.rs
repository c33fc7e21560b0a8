//! Hostname constraints inside the optimisation model: required pod anti-affinity on the
//! hostname (within and across workloads, either direction), topology spread on the hostname,
//! and host ports. All three only ever compare pods on the same node, so they are rules about
//! one node's contents — which groups may share a node and how many of a selection one node
//! may hold — and they fit the packing patterns exactly.
//!
//! Semantics (Karpenter v1.15.0, `provisioning/scheduling/topologygroup.go`):
//! - a hostname spread's domains are nodes, and a new NodeClaim is always a domain with count 0,
//!   so the global minimum is 0 and a pod may join a node while the node holds fewer than
//!   `maxSkew` pods its selector counts (counting itself when it matches: `count + self ≤
//!   maxSkew`, `nextDomainTopologySpread`). The selector counts pods of the owner's namespace.
//!   Pods on the node that holds the owner pass its node filter (they share the node the owner
//!   was admitted to), so every pod of the selection on the node counts.
//! - ScheduleAnyway spreads are held like DoNotSchedule under the Respect preference policy:
//!   Karpenter relaxes them only when a pod cannot schedule otherwise (`preferences.go`), and a
//!   fresh NodeClaim always satisfies a hostname spread; under Ignore they are not built at all.
//! - required anti-affinity is checked both ways (`topology.go`: the pod's own terms and the
//!   inverse groups of placed pods), so two pods conflict when either's term selects the other.
//! - host ports conflict per `HostPort::conflicts` (same port and protocol, overlapping IP);
//!   a pod with any host port is one per node among its replicas.
//!
//! - required pod affinity on the hostname (`nextDomainAffinity`) admits a pod to a node that
//!   already counts a pod its term selects; a pod its own term selects may bootstrap anywhere
//!   when no other selected pod is placed. With every other pod in place (a rescheduled pod's
//!   check) that reads: the pod's node holds another selected pod, unless no other selected pod
//!   exists. Affinity has no inverse groups in Karpenter (`topology.go` builds them for
//!   anti-affinity only), so it binds the term's owner alone. Pods whose term selects pods that
//!   stay where they are keep Karpenter's NodeClaims (`mod.rs`): a new node never holds those.
//!
//! The model holds these in the final placement ("static": every pod's constraints hold with
//! all pods in place), which is what a rescheduled pod would be checked against.

use super::instance::{Cap, Group, Need, Rules};
use crate::model::{Model, Pod, PreferencePolicy, SpreadConstraint, Unsatisfiable};

fn enforced(s: &SpreadConstraint, m: &Model) -> bool {
    s.key == m.keys.hostname
        && (s.when_unsatisfiable == Unsatisfiable::DoNotSchedule || m.settings.preference_policy == PreferencePolicy::Respect)
}

/// Does `p`'s required hostname anti-affinity select `q`?
fn repels(p: &Pod, q: &Pod, m: &Model) -> bool {
    p.anti_affinity.iter().any(|t| t.key == m.keys.hostname && q.in_namespaces(&t.namespaces) && t.selector.matches(&q.labels))
}

fn ports_clash(p: &Pod, q: &Pod) -> bool {
    p.host_ports.iter().any(|a| q.host_ports.iter().any(|b| a.conflicts(b)))
}

/// May pods `p` and `q` not share a node: a hostname anti-affinity of either selects the other,
/// or their host ports clash (the pairwise hostname rules).
pub fn clash(m: &Model, p: &Pod, q: &Pod) -> bool {
    repels(p, q, m) || repels(q, p, m) || ports_clash(p, q)
}

/// The required affinity terms of `p` on the hostname.
pub fn host_affinity<'a>(p: &'a Pod, m: &'a Model) -> impl Iterator<Item = &'a crate::model::AffinityTerm> {
    p.affinity.iter().filter(move |t| t.key == m.keys.hostname)
}

fn term_selects(t: &crate::model::AffinityTerm, q: &Pod) -> bool {
    q.in_namespaces(&t.namespaces) && t.selector.matches(&q.labels)
}

/// Does hostname spread `s` of a pod in namespace `ns` count `q`?
fn counts_for(s: &SpreadConstraint, ns: crate::labels::ValueId, q: &Pod) -> bool {
    q.namespace_id == ns && s.selector.matches(&q.labels)
}

/// The rules among `groups` (each group's first pod stands for it: its pods share one spec),
/// and each group's `per_node` tightened by the rules that bind it to itself.
pub fn rules(m: &Model, groups: &mut [Group]) -> Rules {
    let n = groups.len();
    let reps: Vec<&Pod> = groups.iter().map(|g| &m.pods[g.pods[0]]).collect();
    let mut conflicts = vec![Vec::new(); n];
    let mut caps = Vec::new();
    let mut per_node = vec![u32::MAX; n];
    let mut needs = Vec::new();
    let mut exact = vec![false; n];
    for g in 0..n {
        let p = reps[g];
        if repels(p, p, m) || !p.host_ports.is_empty() {
            per_node[g] = 1;
        }
        for (h, q) in reps.iter().enumerate() {
            if h != g && (repels(p, q, m) || repels(q, p, m) || ports_clash(p, q)) {
                conflicts[g].push(h);
            }
        }
        for s in p.spread.iter().filter(|s| enforced(s, m)) {
            let most = s.max_skew.max(0) as u32;
            let members: Vec<usize> = (0..n).filter(|&h| counts_for(s, p.namespace_id, reps[h])).collect();
            if members.contains(&g) {
                per_node[g] = per_node[g].min(most);
            }
            caps.push(Cap { owner: g, members, most });
        }
        for t in host_affinity(p, m) {
            let members: Vec<usize> = (0..n).filter(|&h| term_selects(t, reps[h])).collect();
            let own = members.contains(&g);
            // No other pod it selects: the pod bootstraps wherever it goes.
            let others: usize = members.iter().map(|&h| groups[h].pods.len()).sum::<usize>() - usize::from(own);
            if others == 0 {
                continue;
            }
            for &h in &members {
                exact[h] = true;
            }
            needs.push(Need { owner: g, members, least: 1 + u32::from(own) });
        }
    }
    for (group, most) in groups.iter_mut().zip(per_node) {
        group.per_node = group.per_node.min(most);
    }
    Rules { conflicts, caps, needs, exact, zones: Default::default() }
}

/// The first required hostname affinity a pod of `node` (the pods of one node) misses with
/// every pod of `everyone` (the whole placement) in place: no other pod its term selects on its
/// node, while some other selected pod exists (else it bootstraps).
pub fn unmet(m: &Model, node: &[usize], everyone: &[usize]) -> Option<String> {
    for &a in node {
        let p = &m.pods[a];
        for t in host_affinity(p, m) {
            if node.iter().any(|&b| b != a && term_selects(t, &m.pods[b])) {
                continue;
            }
            if everyone.iter().any(|&b| b != a && term_selects(t, &m.pods[b])) {
                return Some(format!("pod {} has no pod its required hostname affinity selects on its node", p.key()));
            }
        }
    }
    None
}

/// The first hostname rule the pods of one node break, checked pod by pod (not by group):
/// the independent check of optimised nodes, and the test of Karpenter's own NodeClaims
/// before they seed the model.
pub fn violation(m: &Model, pods: &[usize]) -> Option<String> {
    for (i, &a) in pods.iter().enumerate() {
        let p = &m.pods[a];
        for &b in &pods[i + 1..] {
            let q = &m.pods[b];
            if repels(p, q, m) || repels(q, p, m) {
                return Some(format!("pods {} and {} share a node against a hostname anti-affinity", p.key(), q.key()));
            }
            if ports_clash(p, q) {
                return Some(format!("pods {} and {} share a node with clashing host ports", p.key(), q.key()));
            }
        }
        for s in p.spread.iter().filter(|s| enforced(s, m)) {
            let here = pods.iter().filter(|&&b| counts_for(s, p.namespace_id, &m.pods[b])).count();
            if here > s.max_skew.max(0) as usize {
                return Some(format!("pod {}'s hostname spread (maxSkew {}) counts {here} pods on its node", p.key(), s.max_skew));
            }
        }
    }
    None
}
