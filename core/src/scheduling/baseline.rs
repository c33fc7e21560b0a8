//! The starting point shared by the passes over one model (see [`Baseline`]).

use super::claim::{self, Template};
use super::existing::{self, ExistingState};
use super::topology;
use crate::model::Model;
use crate::requirements::Requirements;
use std::collections::HashMap;

/// What every pass over one model starts from: the NodePool templates and every existing node
/// (not marked for deletion) as a placement target, in scheduling order. Disruption simulates
/// many passes over the same model (one per candidate or prefix); each is
/// `solve_on(m, &base, ...)` with the same `base`, which gives the same `Solution` as
/// `solve_pods` because both are built from `m` alone and excluding a node only drops its
/// entry (the order of the others does not depend on it).
pub struct Baseline {
    pub(super) templates: Vec<Template>,
    pub(super) existing: Vec<ExistingState>,
}

impl Baseline {
    pub fn new(m: &Model) -> Self {
        Baseline { templates: templates(m), existing: existing::build(m, &[]) }
    }

    /// [`Baseline::new`] for one of a series of models that differ only in their nodes, pods and
    /// interned values (the passes of a simulation): the templates are built once, and a node's
    /// label requirements are reused when a node of the same name had the same labels in an
    /// earlier baseline of the series. Both are the values `new` would compute: templates
    /// depend only on the NodePools, node classes, catalog, DaemonSets and settings, and label
    /// requirements only on the labels (interned ids keep their strings).
    pub fn remembering(m: &Model, memo: &mut BaselineMemo) -> Self {
        let templates = memo.templates.get_or_insert_with(|| templates(m)).clone();
        let existing = existing::build_with(m, &[], |n| match memo.labels.get(&n.name) {
            Some((labels, r)) if *labels == n.labels => std::sync::Arc::clone(r),
            _ => {
                let r = std::sync::Arc::new(topology::label_requirements(&n.labels, &m.interner));
                memo.labels.insert(n.name.clone(), (n.labels.clone(), std::sync::Arc::clone(&r)));
                r
            }
        });
        // Forget nodes that are gone, once they are the majority (amortised O(1) per node).
        if memo.labels.len() > 2 * m.nodes.len() + 16 {
            let live: std::collections::HashSet<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
            memo.labels.retain(|name, _| live.contains(name.as_str()));
        }
        Baseline { templates, existing }
    }
}

/// What `Baseline::remembering` carries from one baseline of a series to the next: the
/// templates, and per node name the labels last seen and their requirements.
#[derive(Debug, Default)]
pub struct BaselineMemo {
    templates: Option<Vec<Template>>,
    labels: HashMap<String, (crate::model::LabelSet, std::sync::Arc<Requirements>)>,
}

fn templates(m: &Model) -> Vec<Template> {
    let mut share = claim::TemplateShare::default();
    m.pool_order().into_iter().filter(|&p| m.provisionable(p)).filter_map(|p| claim::build_template_shared(p, m, &mut share)).collect()
}

impl Baseline {
    /// The NodePool templates, in pool order.
    pub fn templates(&self) -> &[Template] {
        &self.templates
    }

    /// Every existing node not marked for deletion, in scheduling order, before any placement.
    pub fn existing(&self) -> &[ExistingState] {
        &self.existing
    }
}
