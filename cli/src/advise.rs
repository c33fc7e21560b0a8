//! `nodecast advise`: NodePool edits that make Karpenter's own plan cheaper, each verified by
//! planning again, as a ranked table with the YAML diffs (or `-o json`, the facade's answer).

use crate::optimize::money;
use crate::table::Table;
use nodecast::advise::{Advice, AdviseSettings};

#[derive(clap::Args, Debug)]
pub struct AdviseArgs {
    /// Kubernetes manifests (YAML or JSON, many documents each); `-` reads stdin.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Show at most N edits (1 to 50, default 5).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Time budget of the optimize call that measures the gap, seconds (default 10).
    #[arg(long, value_name = "SECONDS")]
    pub time_budget: Option<f64>,
    #[command(flatten)]
    pub policies: crate::Policies,
    #[command(flatten)]
    pub gates: crate::Gates,
    #[command(flatten)]
    pub common: crate::Common,
}

pub fn settings(a: &AdviseArgs) -> AdviseSettings {
    AdviseSettings { top: a.top, time_budget_seconds: a.time_budget }
}

pub fn render(a: &Advice) -> String {
    let mut out = format!(
        "Karpenter {}/h; optimum {}/h ({}); gap {}/h\n",
        money(a.karpenter_price_per_hour),
        money(a.optimum_price_per_hour),
        a.optimum_certificate,
        money(a.gap_per_hour)
    );
    if a.advice.is_empty() {
        out.push_str("\nNo NodePool edit makes Karpenter's plan cheaper without leaving pods pending.\n");
    } else {
        let mut t = Table::new(&["#", "KIND", "NEW PLAN $/H", "SAVED $/H", "$/MONTH", "GAP RECOVERED"]).right(&[0, 2, 3, 4, 5]);
        for adv in &a.advice {
            t.row(vec![
                adv.rank.to_string(),
                adv.kind.clone(),
                money(adv.plan.price_per_hour),
                money(adv.savings_per_hour),
                format!("${:.2}", adv.savings_per_month),
                adv.gap_recovered_percent.map_or("-".into(), |p| format!("{p:.1} %")),
            ]);
        }
        out.push('\n');
        out.push_str(&t.render("  "));
        for adv in &a.advice {
            out.push_str(&format!("\n#{} {}\n", adv.rank, adv.title));
            out.push_str(&format!("  Karpenter's plan: {}\n", adv.plan.launches.join(", ")));
            for c in &adv.also_changes {
                out.push_str(&format!("  also: {c}\n"));
            }
            out.push_str(&adv.diff);
        }
    }
    let s = &a.stats;
    out.push_str(&format!(
        "\nSearched {} edits (at most {}) and {} pairs: {} cheaper, {} not cheaper, {} leave pods pending, {} refused by validation, {} duplicate plans\n",
        s.candidates, s.candidate_limit, s.combinations, s.cheaper, s.not_cheaper, s.leave_pods_pending, s.invalid, s.duplicates
    ));
    for n in &a.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for w in &a.warnings {
        out.push_str(&format!("warning: {}\n", w.message));
    }
    out
}
