//! The Cluster Autoscaler as the simulator drives it (simulate/ca_loop.rs): the same scale-up
//! (estimator, expanders) and scale-down (scale_down.rs) as `plan` and `consolidate`, asked one
//! scan loop at a time over the simulated cluster instead of over a snapshot.
//!
//! What a running Cluster Autoscaler keeps between loops, and a snapshot lacks, is kept here
//! or by the simulator:
//! - the node-info cache (processors/nodeinfosprovider/mixed_nodeinfos_processor.go): once a
//!   node of a group has been ready, the group's template is that node's allocatable (its
//!   kubelet's, less than the AWS scale-from-zero template's full capacity), and stays so
//!   after the group is back at zero (`--node-info-cache-expire-time` defaults to 10 years);
//! - upcoming nodes (clusterstate): a node launched and not ready yet is a template node in the
//!   filter-out-schedulable step, so pods that will fit it cause no second scale-up;
//! - the unneeded-since times of scale-down (the simulator passes them in, `History`).
//!
//! kube-scheduler's part, binding a pending pod to a ready node, uses the same predicates
//! (`estimator`): the first ready node with room, in node order.

use super::estimator::{self, SimNode};
use super::scale_down::{self, History};
pub use super::scale_down::{facts, Facts};
use super::template::Template;
use super::{expander, Engine, NodeGroupScaleDown};
use crate::api::Warning;
use crate::error::InputError;
use crate::model::{ExistingNode, Model};
use crate::node_groups::{NodeGroup, NodeGroupInput};
use crate::resources::Resources;

/// The node groups, their templates and what the Cluster Autoscaler learned of them so far.
pub struct Stepper {
    input: NodeGroupInput,
    /// The AWS provider's scale-from-zero templates, one per group.
    templates: Vec<Template>,
    /// Per group: the allocatable of a ready node seen (the node-info cache).
    learned: Vec<Option<Resources>>,
    facts: Facts,
}

/// One scale-up a scan loop decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The node group (index into `groups()`).
    pub group: usize,
    /// Nodes added.
    pub nodes: i64,
    /// Pods the estimate placed on them (model indices).
    pub pods: Vec<usize>,
    /// The expander that chose, or `random` when options tied after the chain.
    pub decided_by: String,
    /// The options the random fallback chose among (the first by name is taken).
    pub tied_with: Vec<String>,
}

impl Stepper {
    /// The groups of `input` over the model `m` of the same inputs (`facts`: the annotations
    /// scale-down reads from their documents, [`facts`]). The templates' labels are interned
    /// into `m`.
    pub fn new(m: &mut Model, input: NodeGroupInput, facts: Facts) -> Result<Stepper, Vec<InputError>> {
        let (templates, interner) = super::checked_templates(m, &input)?;
        // The interner only grows: every id the model holds keeps its meaning.
        m.interner = interner;
        let learned = vec![None; input.groups.len()];
        Ok(Stepper { facts, input, templates, learned })
    }

    /// The node groups, in input order.
    pub fn groups(&self) -> &[NodeGroup] {
        &self.input.groups
    }

    /// Group `g`'s first instance type, zone, price, labels and taints (its launched nodes').
    pub fn template(&self, g: usize) -> (&str, &str, f64, &crate::model::LabelSet, &[crate::taints::Taint]) {
        let t = &self.templates[g];
        (&t.instance_type, &t.zone, t.price, &t.labels, &t.taints)
    }

    /// The group a node of the model belongs to (by its node-group label).
    pub fn group_of(&self, m: &Model, n: &ExistingNode) -> Option<usize> {
        scale_down::group_of(m, &m.interner, &self.input, n)
    }

    /// A node of group `g` became ready with `allocatable`: the group's template from now on.
    pub fn learn(&mut self, g: usize, allocatable: &Resources) {
        if self.learned[g].is_none() {
            self.learned[g] = Some(allocatable.clone());
        }
    }

    /// The groups with their current sizes (live, not deleting nodes) and their templates as
    /// the node-info cache has them.
    fn current(&self, m: &Model) -> (Vec<NodeGroup>, Vec<Template>, Vec<Option<usize>>) {
        let mut groups = self.input.groups.clone();
        for g in &mut groups {
            g.desired = 0;
        }
        let of: Vec<Option<usize>> = m.nodes.iter().map(|n| self.group_of(m, n)).collect();
        for (n, g) in m.nodes.iter().zip(&of) {
            if let Some(g) = g.filter(|_| !n.marked_for_deletion) {
                groups[g].desired += 1;
            }
        }
        let templates = self
            .templates
            .iter()
            .zip(&self.learned)
            .map(|(t, l)| match l {
                Some(a) => Template { capacity: a.clone(), ..t.clone() },
                None => t.clone(),
            })
            .collect();
        (groups, templates, of)
    }

    /// Every node as the simulation sees it: ready nodes as they are (allocatable, labels,
    /// taints, the requests of their pods and, for a group's node, its DaemonSets), upcoming
    /// nodes of a group as its template. Deleting nodes and upcoming nodes of no group are left
    /// out. (node index in the model, its simulation node, its template, ready)
    fn snapshot(&self, m: &Model, e: &Engine, of: &[Option<usize>]) -> Vec<(usize, SimNode, Template, bool)> {
        let mut used = vec![Resources::new(); m.nodes.len()];
        let mut pods: Vec<Vec<usize>> = vec![Vec::new(); m.nodes.len()];
        let mut daemon = vec![false; m.nodes.len()];
        let index: std::collections::HashMap<&str, usize> = m.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
        for (p, pod) in m.pods.iter().enumerate() {
            let Some(&i) = pod.node_name.as_deref().and_then(|n| index.get(n)) else { continue };
            if pod.terminal {
                continue;
            }
            used[i].add(&pod.requests);
            pods[i].push(p);
            daemon[i] |= pod.owned_by_daemonset;
        }
        let mut out = Vec::new();
        for (i, n) in m.nodes.iter().enumerate() {
            if n.marked_for_deletion {
                continue;
            }
            let ready = n.initialized && !n.in_flight;
            match (ready, of[i]) {
                (true, g) => {
                    let mut u = std::mem::take(&mut used[i]);
                    // The simulator does not create DaemonSet pods on the nodes it launches:
                    // their requests are the group's DaemonSet overhead.
                    if let Some(g) = g.filter(|_| !daemon[i]) {
                        u.add(&e.overhead[g]);
                    }
                    let t = Template::of_node(n, 0.0);
                    out.push((i, SimNode { group: g.unwrap_or(usize::MAX), used: u, pods: std::mem::take(&mut pods[i]) }, t, true));
                }
                (false, Some(g)) => out.push((i, e.fresh(g), e.templates[g].clone(), false)),
                (false, None) => {}
            }
        }
        out
    }

    /// kube-scheduler: binds `pending` (model pod indices, in order) to ready nodes, each to the
    /// first with room. Returns (pod, node) model indices.
    pub fn bind(&self, m: &Model, pending: &[usize]) -> Vec<(usize, usize)> {
        let (groups, templates, of) = self.current(m);
        let e = Engine::new(m, &groups, &templates, &m.interner, &self.input.settings);
        let mut nodes: Vec<_> = self.snapshot(m, &e, &of).into_iter().filter(|n| n.3).collect();
        let mut out = Vec::new();
        for &p in pending {
            let hit = nodes.iter().position(|(_, sn, t, _)| {
                estimator::static_misfit(&m.pods[p], t, &m.interner).is_none() && estimator::fits_node(m, p, sn, t, &[]).is_ok()
            });
            if let Some(k) = hit {
                nodes[k].1.used.add(&m.pods[p].requests);
                nodes[k].1.pods.push(p);
                out.push((p, nodes[k].0));
            }
        }
        out
    }

    /// One scan loop's scale-up for `pending` (model pod indices): filter out the pods that fit
    /// a ready or upcoming node, estimate every group below its max size, and let the expanders
    /// choose. `None` when no pod is left or no group can take one. Pods the Cluster Autoscaler
    /// ignores (expendable, DRA claims) are left out.
    pub fn scale_up(&self, m: &Model, pending: &[usize]) -> Option<Launch> {
        let s = &self.input.settings;
        let (groups, templates, of) = self.current(m);
        let e = Engine::new(m, &groups, &templates, &m.interner, s);
        let mut nodes = self.snapshot(m, &e, &of);
        let mut left: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|&p| !super::is_expendable(&m.pods[p], s.expendable_pods_priority_cutoff) && !m.pods[p].resource_claims)
            .collect();
        left.retain(|&p| {
            let hit = nodes.iter().position(|(_, sn, t, ready)| {
                let daemons: &[usize] = if *ready { &[] } else { &e.daemons[sn.group] };
                estimator::static_misfit(&m.pods[p], t, &m.interner).is_none() && estimator::fits_node(m, p, sn, t, daemons).is_ok()
            });
            match hit {
                Some(k) => {
                    nodes[k].1.used.add(&m.pods[p].requests);
                    nodes[k].1.pods.push(p);
                    false
                }
                None => true,
            }
        });
        if left.is_empty() {
            return None;
        }
        let total = groups.iter().map(|g| g.desired).sum();
        let added = vec![0; groups.len()];
        let (options, _) = e.options(&left, &added, total);
        if options.is_empty() {
            return None;
        }
        let views: Vec<expander::OptionView> = options.iter().map(|(g, est)| e.view(*g, est)).collect();
        let choice = expander::choose(&views, s);
        let (g, est) = &options[choice.chosen];
        Some(Launch {
            group: *g,
            nodes: est.nodes.len() as i64,
            pods: est.pods.clone(),
            decided_by: match choice.decided_by {
                expander::Decider::Expander(x) => x.as_str().to_string(),
                expander::Decider::Random => "random".to_string(),
            },
            tied_with: choice.tied.iter().map(|&i| groups[options[i].0].name.clone()).collect(),
        })
    }

    /// One scan loop's scale-down at `now` (Unix seconds) over the nodes of `m`, with `since`
    /// per node (unneeded since, from the earlier loops).
    pub fn scale_down(&self, m: &Model, now: i64, since: &[Option<i64>]) -> Result<NodeGroupScaleDown, Vec<InputError>> {
        let (groups, templates, _) = self.current(m);
        let input = NodeGroupInput { groups, settings: self.input.settings.clone(), consumed: Vec::new() };
        let no_warnings: [Warning; 0] = [];
        scale_down::scale_down(m, &input, &self.facts, &no_warnings, now, Some(&History { templates: &templates, since }))
    }
}
