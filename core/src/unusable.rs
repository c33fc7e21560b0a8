//! Why a NodePool takes no part in provisioning. Karpenter skips a NodePool that is static
//! (`spec.replicas`), not Ready (runtime validation, a missing EC2NodeClass) or whose
//! requirements leave no instance type with an available offering (karpenter
//! pkg/controllers/provisioning/provisioner.go `NewScheduler`: a NodePool whose filtered
//! instance types are empty is logged and skipped; static pools are dropped there too). Such a
//! pool used to vanish from the answers; every answer now names it and says why, in the words
//! below, worked out here once.

use crate::labels::{KeyId, ValueId};
use crate::model::{MinValuesPolicy, Model};
use crate::requirements::Requirement;
use crate::resources::Resources;
use crate::scheduling::{it_labels_compatible, offering_compatible};

/// The kind of reason a NodePool launches nothing (an enum, so callers decide on it, not on
/// the words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnusableKind {
    /// `spec.replicas`: only the static-capacity controller launches its nodes.
    Static,
    /// Fails runtime validation or its EC2NodeClass is missing (the load warnings say which).
    NotReady,
    /// Its requirements (with its labels) leave no instance type with an available offering.
    Requirements,
    /// A requirement's `minValues` cannot be met by what its requirements leave (Strict policy).
    MinValues,
    /// Its EC2NodeClass's overhead leaves no type with non-negative allocatable.
    Allocatable,
}

/// Why NodePool `pool` launches nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    /// The NodePool (index into the model's NodePools).
    pub pool: usize,
    /// Which kind of reason, for callers that decide on it.
    pub kind: UnusableKind,
    /// One sentence naming the requirement and the values involved.
    pub message: String,
}

/// The warning code of a NodePool that can never launch (plan, every answer, `validate`).
pub const WARNING: &str = "nodepool-launches-nothing";

/// Names shown in a message before it says how many more there are.
const SHOWN: usize = 6;

fn list(mut names: Vec<&str>) -> String {
    names.sort_unstable();
    names.dedup();
    let more = names.len().saturating_sub(SHOWN);
    names.truncate(SHOWN);
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("{}{tail}", names.join(", "))
}

/// Why NodePool `pool` launches nothing in a provisioning pass; None when it can launch some
/// instance type. The check is the one template building makes (scheduling::claim), stopping at
/// the first launchable type, so a usable pool costs a few type checks.
pub(crate) fn why(m: &Model, pool: usize) -> Option<Unusable> {
    let np = &m.node_pools[pool];
    let out = |kind, message: String| Some(Unusable { pool, kind, message });
    if np.is_static {
        return out(UnusableKind::Static, "a static NodePool (spec.replicas): dynamic provisioning does not launch from it".into());
    }
    if !np.ready {
        return out(UnusableKind::NotReady, "not Ready (see the warnings): Karpenter does not provision from it".into());
    }
    let reqs = &np.requirements;
    let class = np.node_class_index.filter(|_| m.catalog.is_aws()).map(|ci| &m.node_classes[ci]);
    let fits = |i: usize| {
        let it = &m.catalog.types[i];
        match class {
            Some(c) => Resources::new().fits_in(&crate::catalog::aws::adjust_allocatable(it, c, &m.interner)),
            None => Resources::new().fits_in(&it.allocatable),
        }
    };
    let launchable = |i: usize| {
        let it = &m.catalog.types[i];
        it_labels_compatible(it, reqs, m) && it.offerings.iter().any(|o| o.available && offering_compatible(o, reqs, m))
    };
    let min_values = m.settings.min_values_policy == MinValuesPolicy::Strict && crate::scheduling::claim::has_min_values(reqs);
    // The usual case, a usable pool without minValues, stops at its first launchable type.
    if !min_values && (0..m.catalog.types.len()).any(|i| launchable(i) && fits(i)) {
        return None;
    }
    let its: Vec<u32> = (0..m.catalog.types.len()).filter(|&i| launchable(i)).map(|i| i as u32).collect();
    if its.iter().any(|&i| fits(i as usize)) {
        if min_values {
            let usable: Vec<u32> = its.iter().copied().filter(|&i| fits(i as usize)).collect();
            if let Some((k, min, found)) = crate::scheduling::claim::min_values_shortfall(&usable, reqs, m) {
                return out(
                    UnusableKind::MinValues,
                    format!(
                        "requirement {} has minValues {min} but the instance types it allows offer {found} values (minValuesPolicy Strict)",
                        m.interner.str(k)
                    ),
                );
            }
        }
        return None;
    }
    if !its.is_empty() {
        return out(
            UnusableKind::Allocatable,
            format!(
                "its EC2NodeClass's reserved resources leave no allocatable on the {} instance types its requirements allow",
                its.len()
            ),
        );
    }
    out(UnusableKind::Requirements, requirements_message(m, pool))
}

/// Every NodePool that launches nothing, in the NodePools' weight order.
pub(crate) fn all(m: &Model) -> Vec<Unusable> {
    m.pool_order().into_iter().filter_map(|p| why(m, p)).collect()
}

/// The offering values (zone or capacity type) the catalog has at all.
fn offered(m: &Model, key: KeyId) -> Vec<ValueId> {
    let mut vals: Vec<ValueId> = m
        .catalog
        .types
        .iter()
        .flat_map(|it| it.offerings.iter().filter(|o| o.available))
        .map(|o| if key == m.keys.zone { o.zone } else { o.capacity_type })
        .collect();
    vals.sort_unstable();
    vals.dedup();
    vals
}

/// Which requirement of a pool with no launchable type is to blame: a zone or capacity type no
/// offering has, a label requirement no type meets, or the combination.
fn requirements_message(m: &Model, pool: usize) -> String {
    let reqs = &m.node_pools[pool].requirements;
    let show = |k: KeyId, r: &Requirement| format!("{} {}", m.interner.str(k), r.render(&m.interner));
    // An offering key no available offering of the catalog meets: the most common cause (a zone
    // of another region, `reserved` without reservations).
    for key in [m.keys.zone, m.keys.capacity_type] {
        let Some(r) = reqs.get(key) else { continue };
        let vals = offered(m, key);
        if !vals.iter().any(|&v| r.has(v, &m.interner)) {
            let what = if key == m.keys.zone { "zone" } else { "capacity type" };
            return format!(
                "requirement {} admits no {what} of the {} catalog's available offerings (it has {})",
                show(key, r),
                m.catalog.source,
                list(vals.iter().map(|&v| m.interner.str(v)).collect())
            );
        }
    }
    // A label requirement no type meets by itself.
    for (k, r) in reqs.iter() {
        if k == m.keys.zone || k == m.keys.capacity_type || !m.catalog.is_label_key(k) {
            continue;
        }
        let meets = |it: &crate::catalog::InstanceType| match it.labels.get(k) {
            Some(v) => r.has(v, &m.interner),
            None => r.allows_absent(),
        };
        if !m.catalog.types.iter().any(meets) {
            return format!("requirement {} is met by no instance type of the {} catalog", show(k, r), m.catalog.source);
        }
    }
    let allowed: Vec<&crate::catalog::InstanceType> = m.catalog.types.iter().filter(|it| it_labels_compatible(it, reqs, m)).collect();
    let labels = reqs.render(&m.interner, |k| k == m.keys.zone || k == m.keys.capacity_type || !m.catalog.is_label_key(k));
    if allowed.is_empty() {
        return format!("no instance type of the {} catalog meets its requirements together ({labels})", m.catalog.source);
    }
    // The types its label requirements allow have no available offering in the zones and
    // capacity types it allows: say where they are offered.
    let offers: Vec<String> = allowed
        .iter()
        .flat_map(|it| {
            it.offerings.iter().filter(|o| o.available).map(|o| format!("{} {}", m.interner.str(o.capacity_type), m.interner.str(o.zone)))
        })
        .collect();
    let wanted: Vec<String> = [m.keys.zone, m.keys.capacity_type].iter().filter_map(|&k| reqs.get(k).map(|r| show(k, r))).collect();
    let names: Vec<&str> = allowed.iter().map(|it| it.name.as_str()).collect();
    if offers.is_empty() {
        return format!("the instance types its requirements allow ({}) have no available offering", list(names));
    }
    format!(
        "the instance types its requirements allow ({}) have no available offering with {} (they are offered as: {})",
        list(names),
        wanted.join(" and "),
        list(offers.iter().map(String::as_str).collect())
    )
}
