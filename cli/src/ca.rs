//! `nodecast plan` answered by the Cluster Autoscaler (docs/cluster-autoscaler.md): the table
//! rendering of a `NodeGroupPlan`. The answer's content is the core's; this only lays it out.

use crate::table::Table;
use nodecast::cluster_autoscaler::NodeGroupPlan;
use std::fmt::Write;

fn section(out: &mut String, title: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(title);
    out.push('\n');
}

/// The table view of a Cluster Autoscaler plan.
pub fn plan(p: &NodeGroupPlan) -> String {
    let mut out = String::new();
    let new: i64 = p.node_groups.iter().map(|g| g.new_nodes).sum();
    let placed: usize = p.nodes.iter().map(|n| n.pods.len()).sum();
    let _ = writeln!(
        out,
        "Cluster Autoscaler: {} scale-up(s), {new} new node(s): ${:.3}/h; {placed} pod(s) placed; {} pod(s) unschedulable",
        p.scale_ups.len(),
        p.new_price_per_hour + 0.0,
        p.unschedulable.len()
    );
    section(&mut out, "Scale-ups");
    let mut t = Table::new(&["LOOP", "NODE GROUP", "NODES", "PODS", "CHOSEN BY", "OPTIONS (nodes, waste)"]).right(&[0, 2, 3]);
    for s in &p.scale_ups {
        let options: Vec<String> = s.options.iter().map(|o| format!("{} ({}, {:.3})", o.node_group, o.nodes, o.waste)).collect();
        t.row(vec![
            s.loop_.to_string(),
            s.node_group.clone(),
            s.nodes.to_string(),
            s.pods.len().to_string(),
            s.decided_by.clone(),
            options.join(", "),
        ]);
        if !s.tied_with.is_empty() {
            t.note(format!("random tie among {}; nodecast takes the first by name", s.tied_with.join(", ")));
        }
    }
    if t.is_empty() {
        out.push_str("  none\n");
    } else {
        out.push_str(&t.render("  "));
    }
    if !p.nodes.is_empty() {
        section(&mut out, "Nodes");
        let mut t = Table::new(&["NAME", "NODE GROUP", "INSTANCE TYPE", "NEW", "PODS"]);
        for n in &p.nodes {
            t.row(vec![
                n.name.clone(),
                n.node_group.clone(),
                n.instance_type.clone(),
                if n.new { "yes" } else { "no" }.into(),
                n.pods.join(", "),
            ]);
        }
        out.push_str(&t.render("  "));
    }
    if !p.unschedulable.is_empty() {
        section(&mut out, "Unschedulable");
        for u in &p.unschedulable {
            let _ = writeln!(out, "  {}", u.pod);
            for r in &u.reasons {
                let group = r.node_group.as_deref().map(|g| format!("{g}: ")).unwrap_or_default();
                let code = serde_json::to_value(r.code).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                let _ = writeln!(out, "    {group}{code}: {}", r.message);
            }
        }
    }
    section(&mut out, "Node groups");
    let mut t =
        Table::new(&["NAME", "INSTANCE TYPE", "CAPACITY", "ZONE", "MIN", "MAX", "CURRENT", "NEW", "$/H PER NODE"]).right(&[4, 5, 6, 7, 8]);
    for g in &p.node_groups {
        t.row(vec![
            g.name.clone(),
            g.instance_type.clone(),
            g.capacity_type.clone(),
            g.zone.clone(),
            g.min_size.to_string(),
            g.max_size.to_string(),
            g.current_size.to_string(),
            g.new_nodes.to_string(),
            format!("${:.3}", g.price_per_hour),
        ]);
    }
    out.push_str(&t.render("  "));
    let expander: Vec<&str> = p.settings.expander.iter().map(|e| e.as_str()).collect();
    section(&mut out, "Settings");
    let _ = writeln!(
        out,
        "  expander {}, max-nodes-per-scaleup {}, max-nodes-total {}",
        expander.join(","),
        p.settings.max_nodes_per_scale_up,
        p.settings.max_nodes_total
    );
    section(&mut out, "Disclosures");
    for d in &p.disclosures {
        let _ = writeln!(out, "  {d}");
    }
    if !p.warnings.is_empty() {
        section(&mut out, "Warnings");
        for w in &p.warnings {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    out
}
