//! Where Karpenter's own pick is not determined (issue 22, point 4).
//!
//! Karpenter ranks consolidation candidates by savings ratio (price ÷ reschedule disruption
//! cost), and candidates with equal ratios keep the order they were gathered in from a Go map,
//! which varies from run to run. nodecast breaks such ties in launch order, Karpenter's likeliest
//! (`super::map_order`); the answer names the others.

use super::NodeInfo;
use crate::api::TieOut;
use crate::model::Model;

/// One disclosure: Karpenter may take any `count` of `group` (indices into `infos`).
pub(crate) fn tie(m: &Model, infos: &[NodeInfo], group: &[usize], count: usize, ratio: f64) -> TieOut {
    let mut nodes: Vec<String> = group.iter().map(|&i| m.nodes[infos[i].node].name.clone()).collect();
    nodes.sort();
    let any = if count == 1 { "any".to_string() } else { format!("any {count}") };
    TieOut {
        count,
        message: format!(
            "Karpenter may pick {any} of: {} (equal price ÷ disruption cost {}; Karpenter takes equals in its node map's order, which varies from run to run; nodecast takes the first launched, its likeliest pick)",
            nodes.join(", "),
            ratio_text(ratio)
        ),
        nodes,
    }
}

/// A single-node pick that depends on the order Karpenter visits NodePools in: `group` holds
/// one candidate per pool, each the first of its pool that yields a command at the same rank.
pub(crate) fn pool_order_tie(m: &Model, infos: &[NodeInfo], group: &[usize]) -> TieOut {
    let mut nodes: Vec<String> = group.iter().map(|&i| m.nodes[infos[i].node].name.clone()).collect();
    nodes.sort();
    TieOut {
        count: 1,
        message: format!(
            "Karpenter may pick any of: {} (each its NodePool's candidate of the same rank; Karpenter visits NodePools in an arbitrary order)",
            nodes.join(", ")
        ),
        nodes,
    }
}

fn ratio_text(r: f64) -> String {
    let s = format!("{r:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The tie groups of `ranked` (candidates in Karpenter's order, ties adjacent) that `chosen`
/// splits: it takes some of a group's members but not all. Those are the places where a
/// different order among equals would have put other members in the command. (A group taken
/// whole or not at all is the same whatever the order.)
///
/// A member whose pool budget (`budget`, by pool; `None` = unlimited) is used up by strictly
/// better ranked nodes of its pool could never be taken and is left out. `per_pool` groups only
/// nodes of one pool: emptiness takes every empty node its budget allows, so equals of
/// different pools never compete; multi-node consolidation cuts one list across pools.
pub(crate) fn cut_groups(
    m: &Model,
    infos: &[NodeInfo],
    ranked: &[usize],
    chosen: &[usize],
    budget: &dyn Fn(usize) -> Option<i64>,
    per_pool: bool,
) -> Vec<TieOut> {
    // Nodes of each pool ranked strictly better than the current group (the groups are
    // visited best first, so this is a running count).
    let mut ahead: Vec<i64> = vec![0; m.node_pools.len() + 1];
    let slot = |i: usize| infos[i].pool.unwrap_or(m.node_pools.len());
    let mut out = Vec::new();
    let mut start = 0;
    while start < ranked.len() {
        let key = infos[ranked[start]].savings_ratio();
        let mut end = start + 1;
        while end < ranked.len() && infos[ranked[end]].savings_ratio().total_cmp(&key).is_eq() {
            end += 1;
        }
        let block = &ranked[start..end];
        let reachable = |i: usize| infos[i].pool.and_then(budget).is_none_or(|b| ahead[slot(i)] < b);
        let mut pools: Vec<Option<usize>> = block.iter().map(|&i| if per_pool { infos[i].pool } else { None }).collect();
        pools.sort();
        pools.dedup();
        for p in pools {
            let group: Vec<usize> = block.iter().copied().filter(|&i| (!per_pool || infos[i].pool == p) && reachable(i)).collect();
            let taken = group.iter().filter(|i| chosen.contains(i)).count();
            if taken > 0 && taken < group.len() {
                out.push(tie(m, infos, &group, taken, key));
            }
        }
        for &i in block {
            ahead[slot(i)] += 1;
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::ratio_text;

    #[test]
    fn ratios_print_without_trailing_zeros() {
        assert_eq!(ratio_text(0.1), "0.1");
        assert_eq!(ratio_text(2.0), "2");
        assert_eq!(ratio_text(1.0 / 3.0), "0.333333");
    }
}
