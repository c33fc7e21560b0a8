//! `nodecast optimize`: the cheapest NodeClaims for the pods Karpenter's plan places, beside
//! Karpenter's plan, as a table (or `-o json`, the facade's answer unchanged).

use crate::table::Table;
use nodecast::optimize::{Optimization, OptimizeSettings};

#[derive(clap::Args, Debug)]
pub struct OptimizeArgs {
    /// Kubernetes manifests (YAML or JSON, many documents each); `-` reads stdin.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Wall-clock budget of the whole call in seconds (default 10; every phase takes from what
    /// is left, the LP bound at most a quarter): when it binds, the best packing so far is
    /// shown with its gap to the lower bound.
    #[arg(long, value_name = "SECONDS")]
    pub time_budget: Option<f64>,
    /// The time of the pass (RFC 3339): capacity reservations are resolved at it, as `plan
    /// --now` does (a capacity block is not launched into from 40 minutes before its end).
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Optimise the running cluster at --now: the cheapest set of nodes (existing ones kept,
    /// new NodeClaims) for the pods that run now, beside what Karpenter's consolidation does.
    #[arg(long, requires = "now")]
    pub running: bool,
    #[command(flatten)]
    pub policies: crate::Policies,
    #[command(flatten)]
    pub gates: crate::Gates,
    #[command(flatten)]
    pub common: crate::Common,
}

pub fn settings(a: &OptimizeArgs) -> OptimizeSettings {
    OptimizeSettings { time_budget_seconds: a.time_budget, enumerate_limit: None, running: a.running }
}

fn claims(n: usize) -> String {
    format!("{n} NodeClaim{}", if n == 1 { "" } else { "s" })
}

pub(crate) fn money(x: f64) -> String {
    format!("${}", trim(x))
}

fn trim(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0');
    let s = s.strip_suffix('.').unwrap_or(s);
    if s.contains('.') && s.split('.').nth(1).is_some_and(|d| d.len() == 1) {
        format!("{s}0")
    } else {
        s.to_string()
    }
}

fn claims_table(claims: &[nodecast::optimize::OptimizedClaim]) -> String {
    let mut t = Table::new(&["NAME", "NODEPOOL", "INSTANCE TYPE", "CAPACITY", "ZONE", "$/H", "PODS"]).right(&[5]);
    for c in claims {
        let mut pods = c.pods.join(", ");
        if c.pods.len() > 6 {
            pods = format!("{} and {} more", c.pods[..6].join(", "), c.pods.len() - 6);
        }
        let name = if c.kept { format!("{} (kept)", c.name) } else { c.name.clone() };
        t.row(vec![
            name,
            c.node_pool.clone(),
            c.instance_type.clone(),
            // A reserved NodeClaim names its reservation: counts are per reservation.
            match &c.reservation_id {
                Some(id) => format!("{} ({id})", c.capacity_type),
                None => c.capacity_type.clone(),
            },
            c.zone.clone(),
            money(c.price_per_hour),
            pods,
        ]);
    }
    t.render("  ")
}

/// The running cluster's side: the nodes now, the optimum, Karpenter's consolidation.
fn running(r: &nodecast::optimize::running::RunningCluster) -> String {
    use nodecast::optimize::running::NodeFate;
    let mut out = format!(
        "Running cluster at {}: now {}/h; optimum {}/h ({}; lower bound {}/h)\n",
        r.now,
        money(r.current_price_per_hour),
        money(r.optimum_price_per_hour),
        r.certificate,
        money(r.lower_bound_per_hour)
    );
    if let Some(k) = &r.karpenter {
        out.push_str(&format!(
            "Karpenter's consolidation: now {} -> {}/h; after a day of passes ({} command{}) {}/h\n",
            k.command,
            money(k.price_per_hour_after),
            k.commands,
            if k.commands == 1 { "" } else { "s" },
            money(k.price_per_hour_at_until)
        ));
    }
    out.push_str(&format!(
        "Optimum against now: {}/h, ${:.2}/month (730 h); {} pod{} move\n",
        money(r.savings_per_hour),
        r.savings_per_month,
        r.pods_moved,
        if r.pods_moved == 1 { "" } else { "s" }
    ));
    out.push_str("\nNodes\n");
    let mut t = Table::new(&["NAME", "NODEPOOL", "INSTANCE TYPE", "$/H", "PODS", "OPTIMUM"]).right(&[3, 4]);
    for n in &r.nodes {
        let fate = match n.fate {
            NodeFate::Pinned => format!("pinned: {}", n.reason.as_deref().unwrap_or_default()),
            NodeFate::Kept => format!("kept (as {})", n.optimum_node_claim.as_deref().unwrap_or_default()),
            NodeFate::Removed => "removed".to_string(),
        };
        t.row(vec![
            n.name.clone(),
            n.node_pool.clone().unwrap_or_default(),
            n.instance_type.clone().unwrap_or_default(),
            money(n.price_per_hour),
            n.pods.to_string(),
            fate,
        ]);
    }
    out.push_str(&t.render("  "));
    if !r.new_node_claims.is_empty() {
        out.push_str(&format!("New NodeClaims: {}\n", r.new_node_claims.join(", ")));
    }
    if !r.pending_left_out.is_empty() {
        out.push_str(&format!("{} pending pod(s) left out (plain `optimize` is for them)\n", r.pending_left_out.len()));
    }
    out.push_str("\nThe pods of the nodes the optimum may remove:\n");
    out
}

pub fn render(o: &Optimization) -> String {
    let mut out = String::new();
    if let Some(r) = &o.running {
        out.push_str(&running(r));
    }
    out.push_str(&format!(
        "Karpenter {}/h with {}; optimum {}/h with {} ({}; lower bound {}/h)\n",
        money(o.karpenter_price_per_hour),
        claims(o.karpenter_node_claims.len()),
        money(o.optimum_price_per_hour),
        claims(o.node_claims.len()),
        o.certificate,
        money(o.lower_bound_per_hour),
    ));
    if o.kept_pods > 0 {
        // The bound covers these pods too; the reasons are under "Not optimised".
        let all: usize = o.karpenter_node_claims.iter().map(|c| c.pods.len()).sum();
        out.push_str(&format!("{} of {all} pods keep Karpenter's NodeClaims (see Not optimised)\n", o.kept_pods));
    }
    out.push_str(&format!("Gap: {}/h, {}/month (730 h)\n", money(o.savings_per_hour), format_args!("${:.2}", o.savings_per_month)));
    out.push_str("\nOptimum NodeClaims\n");
    out.push_str(&claims_table(&o.node_claims));
    out.push_str("\nKarpenter's NodeClaims\n");
    out.push_str(&claims_table(&o.karpenter_node_claims));
    if !o.moved_pods.is_empty() {
        out.push_str(&format!("\nPods placed differently ({})\n", o.moved_pods.len()));
        let mut t = Table::new(&["POD", "KARPENTER", "OPTIMUM"]);
        for m in o.moved_pods.iter().take(40) {
            t.row(vec![m.pod.clone(), m.karpenter.clone(), m.optimum.clone()]);
        }
        out.push_str(&t.render("  "));
        if o.moved_pods.len() > 40 {
            out.push_str(&format!("  ... and {} more (-o json has all)\n", o.moved_pods.len() - 40));
        }
    }
    if !o.not_optimised.is_empty() {
        out.push_str("\nNot optimised\n");
        for n in &o.not_optimised {
            out.push_str(&format!("  - {n}\n"));
        }
    }
    if !o.pods_on_existing_nodes.is_empty() || !o.unschedulable.is_empty() {
        out.push_str(&format!(
            "\n{} pods run on existing nodes' free room; {} pods Karpenter leaves pending are left out of both\n",
            o.pods_on_existing_nodes.len(),
            o.unschedulable.len()
        ));
    }
    let s = &o.stats;
    out.push_str(&format!(
        "\nSolver: {} pods in {} groups, {} offerings, {} packing patterns{}{}\n",
        s.pods,
        s.groups,
        s.offerings,
        s.patterns,
        if s.exhaustive { " (all of them)" } else { "" },
        if s.timed_out { "; the time budget ran out" } else { "" }
    ));
    for w in &o.warnings {
        out.push_str(&format!("warning: {}\n", w.message));
    }
    out
}
