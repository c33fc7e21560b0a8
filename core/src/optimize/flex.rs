//! NodePool `minValues` inside the model: a NodeClaim of a NodePool whose requirements carry
//! `minValues` must keep at least that many distinct values of the key among its instance-type
//! options, or Karpenter does not launch it (MinValuesPolicy Strict, the default).
//!
//! Semantics (Karpenter v1.15.0, `provisioning/scheduling/nodeclaim.go` and
//! `cloudprovider/types.go` `SatisfiesMinValues`, `Truncate`): a NodeClaim's options are the
//! NodePool's types that every pod on it admits (requirements, and an offering all of them
//! accept) and whose allocatable, less the DaemonSet overhead, holds all its pods; the options
//! are sorted by their cheapest offering and truncated to `maxInstanceTypes` (60), and the
//! truncated list must hold `minValues` distinct values of each such key (a label of the type,
//! or the zone / capacity type of the offerings left). Fewer pods leave more options, so the
//! rule is downward closed: it fits the packing patterns as the hostname rules do, per class.
//! Under the BestEffort policy Karpenter lowers minValues to what is available: no rule.

use super::class::{pod_admits, Class};
use super::group::Group;
use crate::labels::{KeyId, ValueId};
use crate::model::{MinValuesPolicy, Model};
use crate::scheduling::claim::Template;

/// The minValues rule of one template: its keys, and per candidate type the offerings each
/// group admits (a bit per offering), its room and its values.
#[derive(Debug, Clone)]
pub struct Flex {
    keys: Vec<(KeyId, u32)>,
    zone_key: KeyId,
    capacity_key: KeyId,
    max_types: usize,
    types: Vec<FlexType>,
}

#[derive(Debug, Clone)]
struct FlexType {
    it: u32,
    name: String,
    room: Vec<i64>,
    /// Per group: the offerings (bits, indexed like `offers`) the group admits.
    admits: Vec<u128>,
    /// (zone, capacity type, price) per offering, available ones only.
    offers: Vec<(ValueId, ValueId, f64)>,
    /// Per key of `Flex::keys`: the type's label value (None for zone / capacity type keys).
    labels: Vec<Option<ValueId>>,
}

/// The rule per template (None where the template has no minValues, or under BestEffort).
pub fn build(m: &Model, templates: &[Template], groups: &[Group], dims: usize) -> Vec<Option<Flex>> {
    templates
        .iter()
        .map(|t| {
            let keys: Vec<(KeyId, u32)> = t.requirements.iter().filter_map(|(k, r)| r.min_values.map(|v| (k, v))).collect();
            if keys.is_empty() || m.settings.min_values_policy != MinValuesPolicy::Strict {
                return None;
            }
            let types = t
                .its
                .iter()
                .filter_map(|&it| {
                    let row = t.room.of(it);
                    if row.first().is_some_and(|&v| v == i64::MIN) {
                        return None;
                    }
                    let it_ref = &m.catalog.types[it as usize];
                    let offers: Vec<(ValueId, ValueId, f64, Option<u32>)> = it_ref
                        .offerings
                        .iter()
                        .filter(|o| o.available && crate::scheduling::offering_compatible(o, &t.requirements, m))
                        .map(|o| (o.zone, o.capacity_type, o.price, o.reservation))
                        .take(128)
                        .collect();
                    let admits = groups
                        .iter()
                        .map(|g| {
                            let pod = &m.pods[g.pods[0]];
                            offers
                                .iter()
                                .enumerate()
                                .filter(|(_, o)| pod_admits(pod, t, it, o.0, o.1, o.3, m))
                                .fold(0u128, |bits, (i, _)| bits | (1u128 << i))
                        })
                        .collect();
                    let labels = keys.iter().map(|&(k, _)| it_ref.labels.get(k)).collect();
                    Some(FlexType {
                        it,
                        name: it_ref.name.clone(),
                        room: (0..dims).map(|r| row.get(r).copied().unwrap_or(0)).collect(),
                        admits,
                        offers: offers.iter().map(|o| (o.0, o.1, o.2)).collect(),
                        labels,
                    })
                })
                .collect();
            Some(Flex { keys, zone_key: m.keys.zone, capacity_key: m.keys.capacity_type, max_types: m.settings.max_instance_types, types })
        })
        .collect()
}

impl Flex {
    /// The first key whose minValues a NodeClaim of `class` holding `counts` pods per group
    /// misses, with the values it keeps; `pinned`: the NodeClaim's zone is the class's (its
    /// pods have zone rules), so only offerings there count.
    pub fn shortfall(&self, groups: &[Group], class: &Class, counts: &[u32], pinned: bool) -> Option<(KeyId, u32, usize)> {
        // Options: (cheapest admitted price, name, type index, offerings left).
        let mut options: Vec<(f64, &str, u32, u128)> = Vec::new();
        for t in &self.types {
            let mut bits = if t.offers.len() >= 128 { u128::MAX } else { (1u128 << t.offers.len()) - 1 };
            if pinned {
                bits &= t.offers.iter().enumerate().filter(|(_, o)| o.0 == class.zone).fold(0, |b, (i, _)| b | (1u128 << i));
            }
            for (g, &n) in counts.iter().enumerate() {
                if n > 0 {
                    bits &= t.admits[g];
                }
            }
            if bits == 0 {
                continue;
            }
            let fits = (0..t.room.len()).all(|r| {
                let used: i128 = counts.iter().enumerate().map(|(g, &n)| groups[g].requests[r] as i128 * n as i128).sum();
                used <= t.room[r] as i128
            });
            if !fits {
                continue;
            }
            let price = t.offers.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1).map(|(_, o)| o.2).fold(f64::MAX, f64::min);
            options.push((price, &t.name, t.it, bits));
        }
        options.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        options.truncate(self.max_types);
        if !options.iter().any(|o| o.2 == class.it) {
            // Karpenter would never launch the class's type for these pods: cheaper options
            // fill the truncated list (or the type holds them in no offering they all accept).
            return Some((self.keys[0].0, self.keys[0].1, 0));
        }
        for (k, &(key, least)) in self.keys.iter().enumerate() {
            let mut values: Vec<ValueId> = Vec::new();
            for &(_, _, it, bits) in &options {
                let t = self.types.iter().find(|t| t.it == it).expect("options come from the types");
                if key == self.zone_key || key == self.capacity_key {
                    for (i, o) in t.offers.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1) {
                        let _ = i;
                        values.push(if key == self.zone_key { o.0 } else { o.1 });
                    }
                } else if let Some(v) = t.labels[k] {
                    values.push(v);
                }
            }
            values.sort_unstable();
            values.dedup();
            if (values.len() as u32) < least {
                return Some((key, least, values.len()));
            }
        }
        None
    }
}
