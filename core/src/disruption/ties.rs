//! Where Karpenter's own pick is not determined (issue 22, point 4).
//!
//! Karpenter ranks consolidation candidates by savings ratio (price ÷ reschedule disruption
//! cost) with an unstable sort over candidates gathered from Go maps, so candidates with equal
//! ratios come in an order that varies from run to run. nodecast breaks such ties by node name,
//! which is one of Karpenter's possible orders; the answer names the others.

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
            "Karpenter may pick {any} of: {} (equal price ÷ disruption cost {}; Karpenter's order among them is arbitrary)",
            nodes.join(", "),
            ratio_text(ratio)
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
pub(crate) fn cut_groups(m: &Model, infos: &[NodeInfo], ranked: &[usize], chosen: &[usize]) -> Vec<TieOut> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < ranked.len() {
        let key = infos[ranked[start]].savings_ratio();
        let mut end = start + 1;
        while end < ranked.len() && infos[ranked[end]].savings_ratio().total_cmp(&key).is_eq() {
            end += 1;
        }
        let group = &ranked[start..end];
        let taken = group.iter().filter(|i| chosen.contains(i)).count();
        if taken > 0 && taken < group.len() {
            out.push(tie(m, infos, group, taken, key));
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
