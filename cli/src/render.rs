//! Human-readable renderings of the facade's answers (the default `-o table` output).

use crate::table::Table;
use nodecast::api::Skipped;
use nodecast::api::{BalancedScore, Decision, NodeClaimOut, Plan, UnschedulableOut};
use nodecast::explain::{Explanation, PodExplanation, TypeExplanation, ValidationReport, Verdict};
use nodecast::query::{CatalogAnswer, CatalogRow};
use nodecast::simulate::Simulation;
use std::collections::BTreeMap;
use std::fmt::Write;

use nodecast::figures::HOURS_PER_MONTH;
/// Pod names shown per NodeClaim row before "+N more".
const PODS_SHOWN: usize = 3;
/// Instance-type options shown by `explain` before "and N more".
const OPTIONS_SHOWN: usize = 10;

/// `$5.672`, `$0.29328`: up to 5 decimals, trailing zeros dropped.
fn dollars(p: f64) -> String {
    let s = format!("{p:.5}");
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let frac = frac.trim_end_matches('0');
    format!("${int}.{frac:0<2}")
}

/// `3 options: a, b, c`, or `8 of 14 options: a, …` when only the first `shown` are listed:
/// the count never claims more names than follow it.
fn options_shown(options: &[String], shown: usize) -> String {
    let list = options.iter().take(shown).cloned().collect::<Vec<_>>().join(", ");
    if options.len() > shown {
        format!("{shown} of {} options: {list}", options.len())
    } else {
        format!("{}: {list}", plural(options.len(), "option", "options"))
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Short names for utilisation figures.
fn resource_short(name: &str) -> Option<&str> {
    Some(match name {
        "pods" => return None,
        "cpu" => "cpu",
        "memory" => "mem",
        "ephemeral-storage" => "disk",
        "nvidia.com/gpu" | "amd.com/gpu" | "habana.ai/gaudi" => "gpu",
        other => other.rsplit('/').next().unwrap_or(other),
    })
}

/// `cpu 62% mem 40% gpu 100%`.
fn utilization(c: &NodeClaimOut) -> String {
    c.utilization.iter().filter_map(|(k, v)| resource_short(k).map(|s| format!("{s} {:.0}%", v * 100.0))).collect::<Vec<_>>().join(" ")
}

fn pod_list(pods: &[String]) -> String {
    if pods.len() <= PODS_SHOWN + 1 {
        return pods.join(", ");
    }
    format!("{}, +{} more", pods[..PODS_SHOWN].join(", "), pods.len() - PODS_SHOWN)
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("-")
}

fn section(out: &mut String, title: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(title);
    out.push('\n');
}

pub fn plan(p: &Plan) -> String {
    let mut out = String::new();
    // `+ 0.0` turns an empty sum's -0.0 into 0.0.
    let total = p.total_price_per_hour + 0.0;
    let _ = writeln!(out, "{}", p.summary);

    if !p.reservation_changes.is_empty() {
        section(&mut out, "Capacity reservations that ended (the AWS provider's controllers act before this pass)");
        for c in &p.reservation_changes {
            let _ = writeln!(out, "  {} {}: {}", c.node, c.change, c.message);
        }
    }

    if !p.node_claims.is_empty() {
        section(&mut out, "NodeClaims");
        let same_daemons = p.node_claims.iter().all(|c| c.daemon_sets == p.node_claims[0].daemon_sets);
        let mut t =
            Table::new(&["NAME", "NODEPOOL", "INSTANCE TYPE", "CAPACITY", "ZONE", "$/H", "OPTIONS", "UTILISATION", "PODS"]).right(&[5, 6]);
        for c in &p.node_claims {
            t.row(vec![
                c.name.clone(),
                c.node_pool.clone(),
                opt(&c.instance_type).to_string(),
                opt(&c.capacity_type).to_string(),
                opt(&c.zone).to_string(),
                match (c.price_per_hour, c.auto_mode_fee_per_hour) {
                    (Some(p), Some(fee)) => format!("{} + {} fee", dollars(p), dollars(fee)),
                    (p, _) => p.map(dollars).unwrap_or_else(|| "-".into()),
                },
                c.instance_type_options.len().to_string(),
                utilization(c),
                pod_list(&c.pods),
            ]);
            if !same_daemons {
                t.note(format!("DaemonSets: {}", if c.daemon_sets.is_empty() { "none".into() } else { c.daemon_sets.join(", ") }));
            }
            for tie in &c.ties {
                t.note(format!("note: {}", tie.message));
            }
        }
        out.push_str(&t.render("  "));
        if same_daemons && !p.node_claims[0].daemon_sets.is_empty() {
            let _ = writeln!(out, "  DaemonSets on every NodeClaim: {}", p.node_claims[0].daemon_sets.join(", "));
        }
    }

    if !p.static_node_claims.is_empty() {
        section(&mut out, "Static NodeClaims (kept at spec.replicas whatever the demand)");
        let mut t = Table::new(&["NAME", "NODEPOOL", "INSTANCE TYPE", "CAPACITY", "ZONE", "$/H", "PODS"]).right(&[5]);
        for c in &p.static_node_claims {
            t.row(vec![
                c.name.clone(),
                c.node_pool.clone(),
                opt(&c.instance_type).to_string(),
                opt(&c.capacity_type).to_string(),
                opt(&c.zone).to_string(),
                c.price_per_hour.map(dollars).unwrap_or_else(|| "-".into()),
                pod_list(&c.pods),
            ]);
        }
        out.push_str(&t.render("  "));
    }

    if !p.static_deprovisioned.is_empty() {
        section(&mut out, "Static scale-down (NodeClaims deleted down to spec.replicas; their pods are pending again)");
        let mut t = Table::new(&["NAME", "NODEPOOL", "WHY", "PODS", "KARPENTER MAY TAKE INSTEAD"]);
        for d in &p.static_deprovisioned {
            let tied = if d.tied_with.is_empty() { "-".to_string() } else { d.tied_with.join(", ") };
            t.row(vec![d.name.clone(), d.node_pool.clone(), d.why.clone(), pod_list(&d.pods), tied]);
        }
        out.push_str(&t.render("  "));
    }

    if !p.capacity_buffers.is_empty() {
        section(&mut out, "CapacityBuffers (virtual pods capacity-buffer-<name>-<i>)");
        let mut t = Table::new(&["NAME", "REPLICAS", "ON EXISTING", "ON NEW", "UNSCHEDULABLE", "PROVISIONING"]).right(&[1, 2, 3, 4]);
        for b in &p.capacity_buffers {
            t.row(vec![
                b.name.clone(),
                b.replicas.to_string(),
                b.on_existing_nodes.to_string(),
                b.on_new_node_claims.to_string(),
                b.unschedulable.to_string(),
                b.provisioning.clone(),
            ]);
            if let Some(m) = &b.message {
                t.note(m.clone());
            }
        }
        out.push_str(&t.render("  "));
    }

    if !p.existing_nodes.is_empty() {
        section(&mut out, "Pods on existing nodes");
        let mut t = Table::new(&["NODE", "NODEPOOL", "INSTANCE TYPE", "PODS"]);
        for n in &p.existing_nodes {
            t.row(vec![n.name.clone(), opt(&n.node_pool).to_string(), opt(&n.instance_type).to_string(), n.pods.join(", ")]);
        }
        out.push_str(&t.render("  "));
    }

    if !p.unschedulable.is_empty() {
        section(&mut out, "Unschedulable pods");
        for group in alike_groups(&p.unschedulable) {
            unschedulable(&mut out, &group, "  ");
        }
    }

    if !p.node_pools.is_empty() {
        section(&mut out, "NodePools");
        let mut t = Table::new(&["NAME", "WEIGHT", "NEW", "RESOURCE", "LIMIT", "USED", "REMAINING"]).right(&[1, 2, 4, 5, 6]);
        for np in &p.node_pools {
            let base = vec![np.name.clone(), np.weight.to_string(), np.new_node_claims.to_string()];
            if np.limits.is_empty() {
                t.row(base.iter().cloned().chain(["no limits".into()]).collect());
            }
            for (i, (res, l)) in np.limits.iter().enumerate() {
                let head = if i == 0 { base.clone() } else { vec![String::new(); 3] };
                t.row(head.into_iter().chain([res.clone(), l.limit.clone(), l.used.clone(), l.remaining.clone()]).collect());
            }
            if let Some(why) = &np.unusable {
                t.note(format!("took no part: {why}"));
            }
        }
        out.push_str(&t.render("  "));
    }

    section(&mut out, "Cost");
    let _ = writeln!(out, "  {}/h, {}/month ({} h)", dollars(total), dollars_2(p.total_price_per_month), HOURS_PER_MONTH);
    if let Some(fee) = p.auto_mode_fee_per_hour {
        let _ = writeln!(out, "  of which EKS Auto Mode management fees {}/h (the fee table of the inputs)", dollars(fee));
    }

    skipped(&mut out, &p.skipped);
    if !p.warnings.is_empty() {
        section(&mut out, "Warnings");
        for w in &p.warnings {
            match &w.object {
                Some(o) if !o.is_empty() => {
                    let _ = writeln!(out, "  {o}: {} [{}]", w.message, w.code);
                }
                _ => {
                    let _ = writeln!(out, "  {} [{}]", w.message, w.code);
                }
            }
        }
    }
    out
}

/// `$4140.56`: a month is not priced to the 1e-5.
fn dollars_2(p: f64) -> String {
    format!("${p:.2}")
}

/// Pending pods that stay pending alike (same code, reasons and hints: the replicas of one
/// workload) as groups, in the order their first pod comes: 20 eval replicas read as one block,
/// not 20 (issue 30).
fn alike_groups(list: &[UnschedulableOut]) -> Vec<Vec<&UnschedulableOut>> {
    let mut groups: Vec<Vec<&UnschedulableOut>> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for u in list {
        let hints: Vec<String> = u.hints.iter().map(|h| format!("{}|{}|{}|{}", h.code, h.node_pool, h.change, h.outcome)).collect();
        let reasons: Vec<String> = u.reasons.iter().map(|r| format!("{}|{:?}|{}", r.code, r.node_pool, r.message)).collect();
        let key = format!("{}\n{}\n{}", u.code, reasons.join("\n"), hints.join("\n"));
        match index.get(&key) {
            Some(&g) => groups[g].push(u),
            None => {
                index.insert(key, groups.len());
                groups.push(vec![u]);
            }
        }
    }
    groups
}

fn unschedulable(out: &mut String, group: &[&UnschedulableOut], indent: &str) {
    let u = group[0];
    if group.len() == 1 {
        let _ = writeln!(out, "{indent}{} [{}]", u.pod, u.code);
    } else {
        let others: Vec<String> = group[1..].iter().map(|o| o.pod.clone()).collect();
        let _ = writeln!(
            out,
            "{indent}{} and {} alike ({}) [{}]",
            u.pod,
            plural(others.len(), "more pod", "more pods"),
            pod_list(&others),
            u.code
        );
    }
    for r in &u.reasons {
        match &r.node_pool {
            Some(np) => {
                let _ = writeln!(out, "{indent}  {np}: {} [{}]", r.message, r.code);
            }
            None => {
                let _ = writeln!(out, "{indent}  {} [{}]", r.message, r.code);
            }
        }
    }
    hints(out, &u.hints, indent);
}

/// The checked fix hints of an unschedulable pod, each with what its re-plan showed. The
/// answer sorts them best first; changes that are not enough alone are listed in full only when
/// nothing better was found, and then only the first: the rest collapse to one line.
fn hints(out: &mut String, hints: &[nodecast::api::Hint], indent: &str) {
    use nodecast::reason::HintOutcome;
    // With a better change found, every not-enough-alone one collapses; without, all but the first.
    let mut one_shown = hints.iter().any(|h| h.outcome != HintOutcome::NotEnoughAlone);
    let mut collapsed: Vec<&str> = Vec::new();
    for h in hints {
        if h.outcome == HintOutcome::NotEnoughAlone {
            if one_shown {
                collapsed.push(&h.node_pool);
                continue;
            }
            one_shown = true;
        }
        let tag = match h.outcome {
            HintOutcome::Verified => "fix (verified)",
            HintOutcome::LandsElsewhere => "fix (lands elsewhere)",
            _ => "fix (not enough alone)",
        };
        let _ = writeln!(out, "{indent}  {tag} for {}: {}", h.node_pool, h.change);
        let _ = writeln!(out, "{indent}    {}", h.check);
    }
    if !collapsed.is_empty() {
        let _ = writeln!(
            out,
            "{indent}  also checked, not enough alone: {} for NodePool {} (-o json lists them)",
            plural(collapsed.len(), "change", "changes"),
            collapsed.join(", ")
        );
    }
}

fn skipped(out: &mut String, skipped: &[Skipped]) {
    if skipped.is_empty() {
        return;
    }
    section(out, "Skipped objects");
    let mut t = Table::new(&["OBJECT", "WHERE", "REASON"]);
    for s in skipped {
        let place = match &s.source {
            Some(src) => format!("{src} #{}", s.document),
            None => format!("document {}", s.document),
        };
        t.row(vec![format!("{}/{}", s.kind, s.name), place, s.reason.clone()]);
    }
    out.push_str(&t.render("  "));
}

pub fn explain(e: &Explanation) -> String {
    let mut out = String::new();
    if let Some(p) = &e.pod {
        pod_explanation(&mut out, p);
    }
    if let Some(t) = &e.instance_type {
        type_explanation(&mut out, t);
    }
    if let Some(n) = &e.node {
        let _ = writeln!(out, "Node {}: {}", n.node.name, if n.node.disrupted { "disrupted" } else { "stays" });
        let _ = writeln!(out, "  {}", n.summary);
        section(&mut out, "Reasons");
        if n.node.reasons.is_empty() {
            out.push_str("  none: it is part of the command\n");
        }
        for r in &n.node.reasons {
            let _ = writeln!(out, "  {:24} {}", r.code, r.message);
        }
        if let Some(sc) = &n.node.score {
            section(&mut out, "Balanced score");
            let _ = writeln!(out, "  {}", score_line(sc));
        }
        section(&mut out, "Command now");
        let _ = writeln!(out, "  {}", n.command);
        for t in &n.ties {
            let _ = writeln!(out, "  {}", t.message);
        }
    }
    out
}

/// One Balanced score in words: the comparison, the two shares and where the pool cost is from.
fn score_line(s: &BalancedScore) -> String {
    format!(
        "{}: {} scores {:.2} {} threshold {:.2} (k {}): saves {}/h = {:.1}% of the pool's {}/h, disruption cost {:.2} = {:.1}% of the pool's {:.2}; pool cost = {}",
        s.node_pool,
        s.scored_move,
        s.score,
        if s.approved { ">=" } else { "<" },
        s.threshold,
        s.k,
        dollars(s.savings_per_hour),
        s.savings_fraction * 100.0,
        dollars(s.pool_cost_per_hour),
        s.disruption_cost,
        s.disruption_fraction * 100.0,
        s.pool_disruption_cost,
        s.pool_cost_source
    )
}

/// `consolidate` as a table: the command, cost before/after, every node's verdict, budgets.
pub fn decision(d: &Decision) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", d.summary);
    let _ = writeln!(
        out,
        "Managed nodes cost {}/h before and {}/h after ({}/month saved)",
        dollars(d.price_per_hour_before),
        dollars(d.price_per_hour_after),
        dollars_2(d.savings_per_month)
    );
    if let Some(r) = &d.replacement {
        section(&mut out, "Replacement");
        let _ = writeln!(
            out,
            "  {} {} {} in {} at {}/h ({})",
            r.node_pool,
            opt(&r.capacity_type),
            opt(&r.instance_type),
            opt(&r.zone),
            r.price_per_hour.map(dollars).unwrap_or_else(|| "?".into()),
            options_shown(&r.instance_type_options, 8)
        );
    }
    if !d.reservation_changes.is_empty() {
        section(&mut out, "Capacity reservations that ended (the AWS provider's controllers act before this pass)");
        for c in &d.reservation_changes {
            let _ = writeln!(out, "  {} {}: {}", c.node, c.change, c.message);
        }
    }
    let unhealthy: Vec<&nodecast::api::NodeVerdict> = d.nodes.iter().filter(|n| n.repair.is_some()).collect();
    if !unhealthy.is_empty() {
        section(&mut out, "Unhealthy nodes (the cloud provider's repair policies)");
        for n in unhealthy {
            let Some(r) = &n.repair else { continue };
            let reason = if r.reason.is_empty() { String::new() } else { format!(" ({})", r.reason) };
            let when = if r.eligible { "eligible since" } else { "eligible at" };
            let _ = writeln!(
                out,
                "  {}: {}={}{reason}, toleration {}m, {when} {}",
                n.name,
                r.condition,
                r.status,
                r.toleration_seconds / 60,
                r.eligible_at
            );
        }
    }
    if !d.scores.is_empty() {
        section(&mut out, "Balanced score");
        for s in &d.scores {
            let _ = writeln!(out, "  {}", score_line(s));
        }
    }
    if !d.ties.is_empty() {
        section(&mut out, "Ties (Karpenter's pick is not determined)");
        for t in &d.ties {
            let _ = writeln!(out, "  {}", t.message);
        }
    }
    section(&mut out, "Nodes");
    let mut t = Table::new(&["NODE", "NODEPOOL", "INSTANCE TYPE", "CAPACITY", "$/H", "PODS", "VERDICT", "WHY"]).right(&[4, 5]);
    for n in &d.nodes {
        let (verdict, why) = if n.disrupted {
            ("disrupted".to_string(), d.reason.map(|r| r.as_str().to_string()).unwrap_or_default())
        } else {
            let r = n.reasons.first();
            (r.map(|r| r.code.as_str().to_string()).unwrap_or_default(), r.map(|r| r.message.clone()).unwrap_or_default())
        };
        t.row(vec![
            n.name.clone(),
            opt(&n.node_pool).to_string(),
            opt(&n.instance_type).to_string(),
            opt(&n.capacity_type).to_string(),
            n.price_per_hour.map(dollars).unwrap_or_default(),
            n.pods.to_string(),
            verdict,
            why,
        ]);
    }
    out.push_str(&t.render("  "));
    section(&mut out, "Disruption budgets now (allowed disruptions per reason)");
    for p in &d.node_pools {
        let allowed: Vec<String> =
            p.allowed.iter().map(|(r, a)| format!("{r} {}", a.map(|a| a.to_string()).unwrap_or_else(|| "unlimited".into()))).collect();
        let _ = writeln!(out, "  {} ({} nodes): {}", p.name, p.nodes, allowed.join(", "));
    }
    if let Some(seq) = &d.sequence {
        section(&mut out, &format!("Sequence until {} ({} commands)", seq.until, seq.steps.len()));
        let mut t = Table::new(&["TIME", "+S", "REASON", "COMMAND", "REPLACEMENT", "DONE"]).right(&[1]);
        for s in &seq.steps {
            t.row(vec![
                s.time.clone(),
                s.after_seconds.to_string(),
                s.reason.as_str().to_string(),
                s.command.clone(),
                s.replacement.clone().unwrap_or_default(),
                s.completed.clone().unwrap_or_else(|| "running at until".into()),
            ]);
        }
        out.push_str(&t.render("  "));
        let _ = writeln!(
            out,
            "  At {}: {} node{} at {}/h, {} pods pending",
            seq.until,
            seq.nodes_at_until.len(),
            if seq.nodes_at_until.len() == 1 { "" } else { "s" },
            dollars(seq.price_per_hour_at_until),
            seq.pending_pods_at_until
        );
        for w in &seq.warnings {
            let _ = writeln!(out, "  warning: {}", w.message);
        }
    }
    skipped(&mut out, &d.skipped);
    out
}

fn verdicts(out: &mut String, vs: &[Verdict]) {
    let width = vs.iter().map(|v| v.name.chars().count()).max().unwrap_or(0);
    for v in vs {
        let mark = if v.ok { "ok" } else { "no" };
        let _ = writeln!(out, "  {mark}  {:width$}  {}", v.name, v.reason);
    }
}

fn pod_explanation(out: &mut String, p: &PodExplanation) {
    let _ = writeln!(out, "Pod {}: {}", p.pod, p.outcome);
    let _ = writeln!(out, "  {}", p.summary);

    section(out, "Preference relaxation");
    if p.relaxations.is_empty() {
        out.push_str("  none needed\n");
    }
    for (i, r) in p.relaxations.iter().enumerate() {
        let _ = writeln!(out, "  {}. {r}", i + 1);
    }

    section(out, "Existing nodes");
    if p.existing_nodes.is_empty() {
        out.push_str("  none in the input\n");
    }
    verdicts(out, &p.existing_nodes);

    section(out, "NodePools (in the order Karpenter tries them)");
    if p.node_pools.is_empty() {
        out.push_str("  none in the input\n");
    }
    verdicts(out, &p.node_pools);

    if let Some(c) = &p.node_claim {
        section(out, &format!("NodeClaim {}", c.name));
        let _ = writeln!(
            out,
            "  {} {} in {} at {}/h, NodePool {}",
            opt(&c.instance_type),
            opt(&c.capacity_type),
            opt(&c.zone),
            c.price_per_hour.map(dollars).unwrap_or_else(|| "-".into()),
            c.node_pool
        );
        let util = utilization(c);
        if !util.is_empty() {
            let _ = writeln!(out, "  utilisation: {util}");
        }
        let _ = writeln!(out, "  pods: {}", c.pods.join(", "));
        let n = c.instance_type_options.len();
        let shown = c.instance_type_options.iter().take(OPTIONS_SHOWN).cloned().collect::<Vec<_>>().join(", ");
        let more = if n > OPTIONS_SHOWN { format!(" and {} more", n - OPTIONS_SHOWN) } else { String::new() };
        let _ = writeln!(out, "  {} (cheapest first): {shown}{more}", plural(n, "instance-type option", "instance-type options"));
    }
    if let Some(u) = &p.unschedulable {
        // The per-NodePool reasons are the NodePool verdicts above; show the others.
        section(out, &format!("Unschedulable [{}]", u.code));
        let shown_above = |np: &Option<String>| np.as_ref().is_some_and(|np| p.node_pools.iter().any(|v| &v.name == np));
        for r in u.reasons.iter().filter(|r| !shown_above(&r.node_pool)) {
            let _ = writeln!(out, "  {} [{}]", r.message, r.code);
        }
        hints(out, &u.hints, "");
    }
}

fn type_explanation(out: &mut String, t: &TypeExplanation) {
    section(out, &format!("Instance type {}: {}", t.instance_type, t.verdict));
    for r in &t.reasons {
        let _ = writeln!(out, "  - {r}");
    }
}

pub fn validation(v: &ValidationReport) -> String {
    let mut out = String::new();
    let _ = write!(out, "valid: {}, {}", plural(v.objects, "object", "objects"), plural(v.node_pools.len(), "NodePool", "NodePools"));
    if !v.node_pools.is_empty() {
        let _ = write!(out, " ({})", v.node_pools.join(", "));
    }
    let _ = write!(out, ", {}", plural(v.pods, "pod", "pods"));
    if !v.skipped.is_empty() {
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &v.skipped {
            *kinds.entry(s.kind.as_str()).or_default() += 1;
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let _ = write!(out, "; skipped {}", kinds.join(", "));
    }
    out.push('\n');
    for w in &v.warnings {
        let _ = writeln!(out, "warning: {}: {} [{}]", w.object.as_deref().unwrap_or("-"), w.message, w.code);
    }
    out
}

/// `81920` MiB → `80Gi`, `24576` → `24Gi`, `15360` → `15Gi`, `1536` → `1.5Gi`.
fn mib(text: &str) -> String {
    let digits = text.trim_end_matches("Mi");
    match digits.parse::<u64>() {
        Ok(m) if m >= 1024 && m % 1024 == 0 => format!("{}Gi", m / 1024),
        Ok(m) if m >= 1024 => format!("{:.1}Gi", m as f64 / 1024.0),
        Ok(m) => format!("{m}Mi"),
        Err(_) => text.to_string(),
    }
}

fn gpu_cell(r: &CatalogRow) -> String {
    match (&r.gpu_name, &r.gpu_count) {
        (Some(name), count) => {
            // A fractional GPU (g6f: 1/8 of an L4) is labelled with a count of 0.
            let mut s = match count.as_deref() {
                Some("0") => format!("{name} fraction"),
                c => format!("{name} x{}", c.unwrap_or("?")),
            };
            if let Some(m) = &r.gpu_memory_mib {
                let each = if count.as_deref() == Some("0") { "" } else { " each" };
                let _ = write!(s, " ({}{each})", mib(m));
            }
            s
        }
        (None, _) => "-".into(),
    }
}

pub fn catalog(c: &CatalogAnswer) -> String {
    let mut t = Table::new(&["NAME", "VCPU", "MEMORY", "ARCH", "GPU", "ACCELERATOR", "ON-DEMAND $/H", "SPOT $/H"]).right(&[1, 2, 6, 7]);
    for r in &c.instance_types {
        let accel = match &r.accelerator_name {
            Some(a) => format!("{a} x{}", r.accelerator_count.as_deref().unwrap_or("?")),
            None => "-".into(),
        };
        t.row(vec![
            r.name.clone(),
            r.vcpu.clone(),
            mib(&r.memory),
            r.arch.clone(),
            gpu_cell(r),
            accel,
            dollars(r.on_demand_price_per_hour),
            r.spot_price_per_hour.map(dollars).unwrap_or_else(|| "-".into()),
        ]);
    }
    let mut out = if t.is_empty() { String::new() } else { t.render("") };
    let _ = writeln!(out, "{} ({})", plural(c.count, "instance type", "instance types"), c.source);
    out
}

/// `45s`, `4m22s`, `2h03m`, `3d 4h05m`.
fn duration(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..86_400 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h{:02}m", s / 86_400, s % 86_400 / 3600, s % 3600 / 60),
    }
}

/// Nodes listed by `simulate`'s text output (the most expensive first).
const SIM_NODES_SHOWN: usize = 15;

fn counts<'a>(m: impl IntoIterator<Item = (&'a String, &'a usize)>) -> String {
    m.into_iter().filter(|(_, v)| **v > 0).map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

pub fn simulation(s: &Simulation) -> String {
    let mut out = String::new();
    let sm = &s.summary;
    let from = s.start.as_deref().map(|t| format!(" from {t}")).unwrap_or_default();
    let _ = writeln!(
        out,
        "Simulated {}{from}: {} with Karpenter, {} for a static cluster sized for the peak ({:.1}% saved)",
        duration(sm.duration_seconds),
        dollars_2(sm.cost_usd),
        dollars_2(sm.static_cost_usd),
        sm.savings_percent
    );
    section(&mut out, "Summary");
    let mut rows: Vec<(&str, String)> = vec![
        ("cost", dollars_2(sm.cost_usd)),
        (
            "GPU hours",
            format!("{:.1} paid, {:.1} used ({:.1}% utilisation)", sm.gpu_hours_paid, sm.gpu_hours_used, sm.gpu_utilization * 100.0),
        ),
        (
            "empty nodes",
            format!("{} over {} (waiting for consolidateAfter)", dollars_2(sm.empty_node_cost_usd), duration(sm.empty_node_seconds)),
        ),
        (
            "pending p50/p95/max",
            format!("{} / {} / {}", duration(sm.pending_seconds.p50), duration(sm.pending_seconds.p95), duration(sm.pending_seconds.max)),
        ),
        ("work lost", duration(sm.work_lost_seconds)),
        (
            "pods",
            format!(
                "{} submitted, {} finished, {} running, {} pending, {} deleted",
                sm.pods.submitted, sm.pods.finished, sm.pods.running, sm.pods.pending, sm.pods.deleted
            ),
        ),
        ("launches", format!("{} ({})", sm.launches.total, counts(&sm.launches.by_node_pool))),
        ("disruptions", format!("{} ({})", sm.disruptions.total, counts(&sm.disruptions.by_reason))),
        ("nodes alive at end", sm.nodes_alive_at_end.to_string()),
    ];
    if sm.disruptions.total == 0 {
        rows[7].1 = "0".into();
    }
    if let (Some(committed), Some(total)) = (sm.reserved_committed_cost_usd, sm.total_cost_with_reservations_usd) {
        let by_type: Vec<String> = sm.cost_by_capacity_type.iter().map(|(k, v)| format!("{k} {}", dollars_2(*v))).collect();
        rows.insert(1, ("cost by capacity", by_type.join(", ")));
        rows.insert(2, ("reservations", format!("{} committed, {} with the nodes", dollars_2(committed), dollars_2(total))));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (k, v) in rows {
        let _ = writeln!(out, "  {k:width$}  {v}");
    }
    section(&mut out, "Static cluster sized for the peak (on-demand, whole duration)");
    let mut t = Table::new(&["NODEPOOL", "INSTANCE TYPE", "COUNT", "$/H EACH"]).right(&[2, 3]);
    for n in &sm.static_cluster {
        t.row(vec![n.node_pool.clone(), n.instance_type.clone(), n.count.to_string(), dollars(n.price_per_hour_usd)]);
    }
    out.push_str(&t.render("  "));
    if !s.reservations.is_empty() {
        section(&mut out, "Capacity reservations (used = TotalInstanceCount - AvailableInstanceCount while active)");
        // The INTERRUPTED column only when a trace sent interruption notices (reservationInterrupt).
        let interrupted = s.reservations.iter().any(|r| r.nodes_interrupted > 0);
        let mut head = vec!["ID", "TYPE", "INSTANCE TYPE", "TOTAL", "ACTIVE", "LAUNCHES", "PEAK", "UTILISATION", "DELETED", "ON-DEMAND"];
        if interrupted {
            head.push("INTERRUPTED");
        }
        head.push("COMMITTED");
        let right: Vec<usize> = (3..head.len()).filter(|&i| i != 4).collect();
        let mut t = Table::new(&head).right(&right);
        for r in &s.reservations {
            let active = match (r.active_from_seconds, r.active_until_seconds) {
                (Some(f), Some(u)) => duration(u - f),
                _ => "never".into(),
            };
            let mut row = vec![
                r.id.clone(),
                r.reservation_type.clone(),
                r.instance_type.clone(),
                r.total.to_string(),
                active,
                r.launches.to_string(),
                r.peak_used.to_string(),
                format!("{:.1}%", r.utilization * 100.0),
                r.nodes_deleted.to_string(),
                r.nodes_on_demand.to_string(),
            ];
            if interrupted {
                row.push(r.nodes_interrupted.to_string());
            }
            row.push(r.committed_cost_usd.map_or_else(|| "unknown".into(), dollars_2));
            t.row(row);
        }
        out.push_str(&t.render("  "));
    }
    if !s.autoscaling.is_empty() {
        section(&mut out, "Autoscaling (HPA every 15 s; served = min(demand, ready replicas x capacity))");
        let mut t = Table::new(&[
            "WORKLOAD",
            "HPA",
            "REPLICAS",
            "PEAK",
            "RESCALES",
            "SERVED",
            "SHORT",
            "BELOW DESIRED",
            "SCALE-UP P50/MAX",
            "GPU H",
            "GPU COST",
        ])
        .right(&[3, 4, 5, 6, 7, 9, 10]);
        for a in &s.autoscaling {
            let range = match (a.min_replicas, a.max_replicas) {
                (Some(lo), Some(hi)) => format!("{lo}-{hi}"),
                _ => "trace".into(),
            };
            let scale_up = match (&a.scale_up_seconds, a.rises_uncovered) {
                (Some(p), Some(0)) => format!("{} / {}", duration(p.p50), duration(p.max)),
                (Some(p), Some(n)) => format!("{} / {} ({n} never)", duration(p.p50), duration(p.max)),
                _ => "-".into(),
            };
            t.row(vec![
                a.workload.clone(),
                a.hpa.clone().unwrap_or_else(|| "-".into()),
                range,
                a.peak_replicas.to_string(),
                a.rescales.to_string(),
                a.served_percent.map_or_else(|| "-".into(), |p| format!("{p:.1}%")),
                a.seconds_short.map_or_else(|| "-".into(), duration),
                duration(a.seconds_below_desired),
                scale_up,
                format!("{:.1}", a.gpu_hours),
                dollars_2(a.gpu_cost_usd),
            ]);
        }
        out.push_str(&t.render("  "));
        // KEDA's own decisions, under the table (its rows' REPLICAS of a ScaledJob count Jobs).
        for a in s.autoscaling.iter().filter(|a| a.keda.is_some()) {
            let keda = a.keda.as_deref().unwrap_or("");
            let line = match (a.jobs_created, a.keda_activations, a.keda_deactivations) {
                (Some(n), ..) => format!(
                    "  {keda}: {n} Jobs created ({} succeeded, {} failed), at most {} at once\n",
                    a.jobs_succeeded.unwrap_or(0),
                    a.jobs_failed.unwrap_or(0),
                    a.peak_replicas
                ),
                (None, up, down) => format!(
                    "  {keda} -> {}: {} activations, {} deactivations to zero or idle\n",
                    a.workload,
                    up.unwrap_or(0),
                    down.unwrap_or(0)
                ),
            };
            out.push_str(&line);
        }
    }
    let mut nodes: Vec<&nodecast::simulate::NodeOut> = s.nodes.iter().collect();
    nodes.sort_by(|a, b| b.cost_usd.total_cmp(&a.cost_usd).then_with(|| a.name.cmp(&b.name)));
    let title = if nodes.len() > SIM_NODES_SHOWN {
        format!("Nodes ({} of {}, most expensive first; -o json has all)", SIM_NODES_SHOWN, nodes.len())
    } else {
        format!("Nodes ({})", nodes.len())
    };
    section(&mut out, &title);
    let mut t = Table::new(&["NAME", "NODEPOOL", "INSTANCE TYPE", "CAPACITY", "$/H", "LIFETIME", "COST", "EMPTY", "PODS", "END"])
        .right(&[4, 5, 6, 7, 8]);
    for n in nodes.iter().take(SIM_NODES_SHOWN) {
        t.row(vec![
            n.name.clone(),
            opt(&n.node_pool).to_string(),
            opt(&n.instance_type).to_string(),
            opt(&n.capacity_type).to_string(),
            dollars(n.price_per_hour_usd),
            duration(n.lifetime_seconds),
            dollars_2(n.cost_usd),
            dollars_2(n.empty_cost_usd),
            n.pods.to_string(),
            n.termination_reason.map_or("alive", |r| r.as_str()).to_string(),
        ]);
    }
    out.push_str(&t.render("  "));
    if !s.warnings.is_empty() {
        section(&mut out, "Warnings");
        for w in &s.warnings {
            let _ = writeln!(out, "  {} [{}]", w.message, w.code);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money() {
        assert_eq!(dollars(5.672), "$5.672");
        assert_eq!(dollars(0.29328), "$0.29328");
        assert_eq!(dollars(0.1), "$0.10");
        assert_eq!(dollars(2.0), "$2.00");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars_2(4140.56), "$4140.56");
    }

    #[test]
    fn memory() {
        assert_eq!(mib("81920"), "80Gi");
        assert_eq!(mib("1536Mi"), "1.5Gi");
        assert_eq!(mib("512"), "512Mi");
        assert_eq!(mib("8Gi"), "8Gi");
    }
}
