//! The expanders: which scale-up option the Cluster Autoscaler takes
//! (cluster-autoscaler/expander/: waste/waste.go, priority/priority.go, mostpods/mostpods.go,
//! leastnodes, random; factory/chain.go chains them).
//!
//! Each expander keeps its best options; a chain hands what one keeps to the next and stops as
//! soon as one option is left. Whatever remains at the end is chosen at random (every expander
//! falls back on `random`): nodecast takes the first by node group name and reports the tie.

use crate::node_groups::{CaSettings, Expander};

/// What an expander sees of one option.
#[derive(Debug, Clone)]
pub struct OptionView<'a> {
    pub group: &'a str,
    pub nodes: i64,
    pub pods: usize,
    /// Sum of the placed pods' CPU and memory requests (milli-units).
    pub requested_cpu: i64,
    pub requested_memory: i64,
    /// The template's CPU and memory capacity (milli-units).
    pub node_cpu: i64,
    pub node_memory: i64,
}

impl OptionView<'_> {
    /// least-waste's score: the unused fraction of the new nodes' CPU plus that of their memory.
    pub fn waste(&self) -> f64 {
        let avail_cpu = (self.node_cpu as f64) * self.nodes as f64;
        let avail_mem = (self.node_memory as f64) * self.nodes as f64;
        let frac = |avail: f64, used: i64| if avail > 0.0 { (avail - used as f64) / avail } else { 0.0 };
        frac(avail_cpu, self.requested_cpu) + frac(avail_mem, self.requested_memory)
    }
}

/// The outcome of the chain: the chosen option (index) and, when the last step was the random
/// fallback over several, the options it chose among.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub chosen: usize,
    pub tied: Vec<usize>,
    /// The expander that decided (the last one that narrowed to one, or the fallback).
    pub decided_by: Decider,
    /// The priority expander matched no option and chose among all at random.
    pub priority_matched_none: bool,
}

/// What made the final choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decider {
    Expander(Expander),
    /// Several options were left: the random fallback.
    Random,
}

/// Run the chain of `s.expanders` over `options` (non-empty).
pub fn choose(options: &[OptionView], s: &CaSettings) -> Choice {
    let mut left: Vec<usize> = (0..options.len()).collect();
    let mut matched_none = false;
    let mut last = None;
    for &e in &s.expanders {
        left = match e {
            Expander::LeastWaste => best_by(&left, |i| -options[i].waste()),
            Expander::MostPods => best_by(&left, |i| options[i].pods as f64),
            Expander::LeastNodes => best_by(&left, |i| -(options[i].nodes as f64)),
            Expander::Random => left,
            Expander::Priority => {
                let (kept, none) = by_priority(options, &left, s);
                matched_none = matched_none || none;
                kept
            }
        };
        last = Some(e);
        // The chain stops at one option (chain.go); a single option is still the first
        // expander's choice.
        if e == Expander::Random || left.len() == 1 {
            break;
        }
    }
    let mut by_name = left.clone();
    by_name.sort_by(|&a, &b| options[a].group.cmp(options[b].group));
    let chosen = by_name[0];
    if by_name.len() == 1 {
        Choice {
            chosen,
            tied: Vec::new(),
            decided_by: Decider::Expander(last.unwrap_or(Expander::Random)),
            priority_matched_none: matched_none,
        }
    } else {
        Choice { chosen, tied: by_name, decided_by: Decider::Random, priority_matched_none: matched_none }
    }
}

/// The options with the highest `key` (exact ties kept, as the expanders compare floats).
fn best_by(left: &[usize], key: impl Fn(usize) -> f64) -> Vec<usize> {
    let best = left.iter().map(|&i| key(i)).fold(f64::NEG_INFINITY, f64::max);
    left.iter().copied().filter(|&i| key(i) == best).collect()
}

/// The options whose group the highest priority matching any of them names. With no
/// ConfigMap the Cluster Autoscaler's priority expander returns nothing and the scale-up does
/// not happen; nodecast refuses that input before it gets here (`missing-priorities`).
fn by_priority(options: &[OptionView], left: &[usize], s: &CaSettings) -> (Vec<usize>, bool) {
    let rules = s.priorities.as_deref().unwrap_or_default();
    for rule in rules {
        let hit: Vec<usize> = left.iter().copied().filter(|&i| rule.patterns.iter().any(|r| r.is_match(options[i].group))).collect();
        if !hit.is_empty() {
            return (hit, false);
        }
    }
    (left.to_vec(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(group: &str, nodes: i64, pods: usize, cpu: i64, mem: i64, node_cpu: i64, node_mem: i64) -> OptionView<'_> {
        OptionView { group, nodes, pods, requested_cpu: cpu, requested_memory: mem, node_cpu, node_memory: node_mem }
    }

    // cluster-autoscaler/expander/waste/waste_test.go, TestLeastWaste: 1 CPU / 1000 bytes
    // requested; a 2-CPU / 512-byte... node group ("balanced", 2 CPU, 2000) beats a 4-CPU one.
    #[test]
    fn least_waste_prefers_the_tighter_group() {
        let options = [opt("balanced", 1, 1, 1000, 1000, 2000, 2000), opt("big", 1, 1, 1000, 1000, 4000, 4000)];
        let c = choose(&options, &CaSettings::default());
        assert_eq!(c.chosen, 0);
        assert!(c.tied.is_empty());
        assert_eq!(c.decided_by, Decider::Expander(Expander::LeastWaste));
    }

    #[test]
    fn equal_waste_is_a_disclosed_random_tie() {
        let options = [opt("b", 1, 1, 1000, 1000, 2000, 2000), opt("a", 1, 1, 1000, 1000, 2000, 2000)];
        let c = choose(&options, &CaSettings::default());
        assert_eq!(c.chosen, 1, "the first by name");
        assert_eq!(c.tied, vec![1, 0]);
        assert_eq!(c.decided_by, Decider::Random);
    }

    #[test]
    fn priority_then_least_waste() {
        let rule = |p: i64, re: &str| crate::node_groups::PriorityRule { priority: p, patterns: vec![regex_lite::Regex::new(re).unwrap()] };
        let s = CaSettings {
            expanders: vec![Expander::Priority, Expander::LeastWaste],
            priorities: Some(vec![rule(50, "^spot-"), rule(10, ".*")]),
            ..CaSettings::default()
        };
        let options = [
            opt("od-a", 1, 1, 1000, 1000, 2000, 2000),
            opt("spot-big", 1, 1, 1000, 1000, 8000, 8000),
            opt("spot-small", 1, 1, 1000, 1000, 4000, 4000),
        ];
        let c = choose(&options, &s);
        assert_eq!(options[c.chosen].group, "spot-small");
        assert_eq!(c.decided_by, Decider::Expander(Expander::LeastWaste));
    }

    #[test]
    fn priority_matching_nothing_falls_back_on_all() {
        let s = CaSettings {
            expanders: vec![Expander::Priority],
            priorities: Some(vec![crate::node_groups::PriorityRule {
                priority: 1,
                patterns: vec![regex_lite::Regex::new("^none$").unwrap()],
            }]),
            ..CaSettings::default()
        };
        let options = [opt("x", 1, 1, 1, 1, 2, 2), opt("y", 1, 1, 1, 1, 2, 2)];
        let c = choose(&options, &s);
        assert!(c.priority_matched_none);
        assert_eq!(c.tied.len(), 2);
    }

    #[test]
    fn a_single_option_is_the_first_expanders_choice() {
        let options = [opt("only", 1, 1, 1, 1, 2, 2)];
        let c = choose(&options, &CaSettings::default());
        assert_eq!((c.chosen, c.decided_by), (0, Decider::Expander(Expander::LeastWaste)));
    }

    #[test]
    fn most_pods_and_least_nodes() {
        let options = [opt("a", 2, 3, 1, 1, 2, 2), opt("b", 1, 2, 1, 1, 2, 2)];
        let most = CaSettings { expanders: vec![Expander::MostPods], ..CaSettings::default() };
        assert_eq!(choose(&options, &most).chosen, 0);
        let least = CaSettings { expanders: vec![Expander::LeastNodes], ..CaSettings::default() };
        assert_eq!(choose(&options, &least).chosen, 1);
    }
}
