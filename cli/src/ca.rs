//! `nodecast plan` and `nodecast consolidate` answered by the Cluster Autoscaler
//! (docs/cluster-autoscaler.md): the table renderings of a `NodeGroupPlan` and a
//! `NodeGroupScaleDown`. The answer's content is the core's; this only lays it out.

use crate::table::Table;
use nodecast::cluster_autoscaler::{NodeGroupPlan, NodeGroupScaleDown, ScaleDownCode, ScaleDownVerdict};
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
    if !p.expendable.is_empty() {
        section(&mut out, "Expendable (priority below the cutoff: no scale-up)");
        let _ = writeln!(out, "  {} (cutoff {})", p.expendable.join(", "), p.settings.expendable_pods_priority_cutoff);
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

/// The table view of a Cluster Autoscaler scale-down.
pub fn scale_down(d: &NodeGroupScaleDown) -> String {
    let mut out = String::new();
    let count = |v: ScaleDownVerdict| d.nodes.iter().filter(|n| n.verdict == v).count();
    let _ = writeln!(
        out,
        "Cluster Autoscaler scale-down at {}: {} node(s) removed (${:.3}/h), {} unneeded (removed later), {} kept",
        d.now,
        count(ScaleDownVerdict::Remove),
        d.removed_price_per_hour + 0.0,
        count(ScaleDownVerdict::Unneeded),
        count(ScaleDownVerdict::Keep)
    );
    section(&mut out, "Nodes");
    let mut t = Table::new(&["NAME", "NODE GROUP", "INSTANCE TYPE", "UTIL", "VERDICT", "LOOP", "WHY"]).right(&[3, 5]);
    let code = |c: ScaleDownCode| serde_json::to_value(c).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let verdict = |v: ScaleDownVerdict| serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    for n in &d.nodes {
        let util = match (n.utilization, &n.utilization_resource) {
            (Some(u), Some(r)) => format!("{u:.3} {}", if r == "nvidia.com/gpu" { "gpu" } else { r.as_str() }),
            _ => "-".into(),
        };
        t.row(vec![
            n.name.clone(),
            n.node_group.clone().unwrap_or_else(|| "-".into()),
            n.instance_type.clone().unwrap_or_else(|| "-".into()),
            util,
            verdict(n.verdict),
            n.loop_.map_or("-".into(), |l| l.to_string()),
            format!("{}: {}", code(n.code), n.message),
        ]);
        if !n.moves.is_empty() {
            let moves: Vec<String> = n.moves.iter().map(|m| format!("{} -> {}", m.pod, m.to)).collect();
            t.note(format!("pods move: {}", moves.join(", ")));
        }
        if let Some(at) = &n.removable_at {
            t.note(format!("removable at {at}"));
        }
    }
    if t.is_empty() {
        out.push_str("  none\n");
    } else {
        out.push_str(&t.render("  "));
    }
    section(&mut out, "Settings");
    let s = &d.settings;
    let _ = writeln!(
        out,
        "  utilization threshold {}, gpu utilization threshold {}, unneeded time {}s, delay after add {}s",
        s.utilization_threshold, s.gpu_utilization_threshold, s.unneeded_time_seconds, s.delay_after_add_seconds
    );
    if let Some(c) = &d.cooldown_until {
        let _ = writeln!(out, "  in cool-down after the last scale-up until {c}");
    }
    section(&mut out, "Disclosures");
    for x in &d.disclosures {
        let _ = writeln!(out, "  {x}");
    }
    if !d.warnings.is_empty() {
        section(&mut out, "Warnings");
        for w in &d.warnings {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    out
}

/// The table view of `nodecast migrate`: the NodePools proposed for the node groups and what
/// each autoscaler does with the pending pods (`--yaml` prints the manifests instead).
pub fn migration(m: &nodecast::migrate::Migration) -> String {
    let mut out = String::new();
    let (ca, k) = (&m.cluster_autoscaler, &m.karpenter);
    let _ = writeln!(
        out,
        "Migration: {} node group(s) -> {} NodePool(s), {} EC2NodeClass(es); Karpenter ${:.3}/h vs Cluster Autoscaler ${:.3}/h ({:+.3}/h, {:+.2}/month)",
        m.node_pools.len(),
        m.node_pools.len(),
        m.node_classes.len(),
        k.price_per_hour + 0.0,
        ca.price_per_hour + 0.0,
        m.price_difference_per_hour + 0.0,
        m.price_difference_per_month + 0.0
    );
    section(&mut out, "NodePools");
    let mut t = Table::new(&["NODE GROUP", "NODEPOOL", "WEIGHT", "CAPACITY", "INSTANCE TYPES", "ZONES", "LIMITS"]);
    for p in &m.node_pools {
        let limits: Vec<String> = p.limits.iter().map(|(k, v)| format!("{k}={v}")).collect();
        t.row(vec![
            p.node_group.clone(),
            p.node_pool.clone(),
            p.weight.map_or_else(|| "-".into(), |w| w.to_string()),
            p.capacity_type.clone(),
            p.instance_types.join(","),
            if p.zones.is_empty() { "-".into() } else { p.zones.join(",") },
            limits.join(" "),
        ]);
        for n in &p.notes {
            t.note(n.clone());
        }
    }
    out.push_str(&t.render("  "));
    section(&mut out, "Plans for the pending pods");
    let mut t = Table::new(&["AUTOSCALER", "NODES", "PODS PLACED", "PENDING", "$/H", "$/MONTH", "NEW NODES"]).right(&[1, 2, 3, 4, 5]);
    for (name, s) in [("cluster-autoscaler", ca), ("karpenter", k)] {
        let types: Vec<String> = s.instance_types.iter().map(|c| format!("{} x{} {}", c.instance_type, c.count, c.capacity_type)).collect();
        t.row(vec![
            name.into(),
            s.nodes.to_string(),
            s.pods_placed.to_string(),
            s.pending.len().to_string(),
            format!("{:.3}", s.price_per_hour + 0.0),
            format!("{:.2}", s.price_per_month + 0.0),
            types.join(", "),
        ]);
        if !s.pending.is_empty() {
            t.note(format!("pending: {}", s.pending.join(", ")));
        }
    }
    out.push_str(&t.render("  "));
    section(&mut out, "Notes");
    for n in &m.notes {
        let _ = writeln!(out, "  {n}");
    }
    if !m.warnings.is_empty() {
        section(&mut out, "Warnings");
        for w in &m.warnings {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    let _ = writeln!(out, "\nnodecast migrate --yaml prints the NodePools and EC2NodeClasses to apply.");
    out
}

/// The table view of `nodecast simulate --compare cluster-autoscaler`: both runs' totals, the
/// nodes of each over time, the Cluster Autoscaler's scale-ups and what is timing-dependent.
pub fn comparison(c: &nodecast::compare::Comparison) -> String {
    let mut out = String::new();
    let (ca, k) = (&c.sides[0], &c.sides[1]);
    let from = match c.node_pools {
        nodecast::compare::NodePoolsFrom::Given => "the inputs' NodePools".to_string(),
        nodecast::compare::NodePoolsFrom::Migrate => {
            format!("migrate's {} NodePool(s) for the node groups", c.migration.as_ref().map_or(0, |m| m.node_pools.len()))
        }
    };
    let _ = writeln!(
        out,
        "Side by side: Cluster Autoscaler ${:.2} vs Karpenter ${:.2} ({:+.2}) over the trace; Karpenter ran {from}",
        ca.cost_usd + 0.0,
        k.cost_usd + 0.0,
        c.cost_difference_usd + 0.0
    );
    section(&mut out, "Runs");
    let mut t = Table::new(&[
        "AUTOSCALER",
        "COST $",
        "LAUNCHED",
        "PEAK",
        "REMOVED",
        "PENDING POD-MIN",
        "P95 WAIT",
        "FINISHED",
        "PENDING AT END",
        "GPU-H PAID",
        "IDLE GPU-H",
    ])
    .right(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for s in &c.sides {
        t.row(vec![
            s.autoscaler.as_str().into(),
            format!("{:.2}", s.cost_usd + 0.0),
            s.nodes_launched.to_string(),
            s.peak_nodes.to_string(),
            s.nodes_removed.to_string(),
            format!("{:.1}", s.pending_pod_minutes + 0.0),
            format!("{}s", s.pending_p95_seconds),
            s.pods_finished.to_string(),
            s.pods_pending_at_end.to_string(),
            format!("{:.2}", s.gpu_hours_paid + 0.0),
            format!("{:.2}", s.idle_gpu_hours + 0.0),
        ]);
    }
    out.push_str(&t.render("  "));
    section(&mut out, "Nodes over time");
    let mut t = Table::new(&["TIME", "CA NODES", "KARPENTER NODES", "CA PENDING", "KARPENTER PENDING", "CA $/H", "KARPENTER $/H"])
        .right(&[1, 2, 3, 4, 5, 6]);
    let s = &c.series;
    let n = s.times_seconds.len();
    // At most 12 rows: evenly spaced samples, and every sample where either count changes
    // when that is fewer.
    let changes: Vec<usize> = (0..n)
        .filter(|&i| i == 0 || (0..2).any(|x| s.nodes[x][i] != s.nodes[x][i - 1] || s.pending_pods[x][i] != s.pending_pods[x][i - 1]))
        .collect();
    let rows: Vec<usize> = if changes.len() <= 12 { changes } else { (0..12).map(|j| j * (n - 1) / 11).collect() };
    for i in rows {
        t.row(vec![
            duration(s.times_seconds[i]),
            s.nodes[0][i].to_string(),
            s.nodes[1][i].to_string(),
            s.pending_pods[0][i].to_string(),
            s.pending_pods[1][i].to_string(),
            format!("{:.3}", s.price_per_hour[0][i] + 0.0),
            format!("{:.3}", s.price_per_hour[1][i] + 0.0),
        ]);
    }
    out.push_str(&t.render("  "));
    if !c.scale_ups.is_empty() {
        section(&mut out, "Cluster Autoscaler scale-ups");
        let mut t = Table::new(&["TIME", "NODE GROUP", "NODES", "CHOSEN BY"]).right(&[2]);
        for u in &c.scale_ups {
            let by = if u.tied_with.is_empty() { u.decided_by.clone() } else { format!("{} ({})", u.decided_by, u.tied_with.join(", ")) };
            t.row(vec![duration(u.time_seconds), u.node_group.clone(), u.nodes.to_string(), by]);
        }
        out.push_str(&t.render("  "));
    }
    if let Some(m) = &c.migration {
        section(&mut out, "Karpenter's NodePools (nodecast migrate --yaml prints them)");
        for p in &m.node_pools {
            let weight = p.weight.map_or_else(String::new, |w| format!(", weight {w}"));
            let _ = writeln!(
                out,
                "  {} <- node group {}: {} {}{weight}",
                p.node_pool,
                p.node_group,
                p.capacity_type,
                p.instance_types.join(",")
            );
        }
    }
    section(&mut out, "Disclosures");
    for d in &c.disclosures {
        let _ = writeln!(out, "  {d}");
    }
    if !c.warnings.is_empty() {
        section(&mut out, "Warnings");
        for w in &c.warnings {
            let _ = writeln!(out, "  {}: {}", w.code, w.message);
        }
    }
    out
}

/// Simulated seconds as `1h02m03s` (`0s` at the start).
fn duration(s: i64) -> String {
    let (h, m, sec) = (s / 3600, s % 3600 / 60, s % 60);
    match (h, m) {
        (0, 0) => format!("{sec}s"),
        (0, _) => format!("{m}m{sec:02}s"),
        _ => format!("{h}h{m:02}m{sec:02}s"),
    }
}
