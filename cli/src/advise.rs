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
    /// The whole call's time budget, seconds: half for the optimize call that measures the gap
    /// (default 10 s), then edits are verified while time is left; those left unverified are
    /// counted and named (default: no bound, every edit verified).
    #[arg(long, value_name = "SECONDS")]
    pub time_budget: Option<f64>,
    /// Do not propose edits of this kind (repeatable): gpu-count-bound, cpu-bound,
    /// size-exclusion, family-exclusion, type-exclusion, family-allow-list, generation-bound,
    /// type-allow-list, allow-spot, weight, split, allow-reserved, select-reservation, combined.
    #[arg(long = "exclude-kind", value_name = "KIND")]
    pub exclude_kinds: Vec<String>,
    /// Do not edit (or split) this NodePool (repeatable).
    #[arg(long = "exclude-nodepool", value_name = "NAME")]
    pub exclude_node_pools: Vec<String>,
    /// Answer only edits whose risk is at most this: none, low, medium or high (default).
    #[arg(long, value_name = "LEVEL")]
    pub max_risk: Option<String>,
    /// Apply the edit of this rank to the input files: print it as a unified patch
    /// (`| patch -p0`, `| git apply -p0`), or with --write, write the edited files.
    #[arg(long, value_name = "RANK")]
    pub apply: Option<usize>,
    /// With --apply: write the edited input files under this directory (same relative paths;
    /// `.` overwrites them in place) instead of printing the patch.
    #[arg(long, value_name = "DIR", requires = "apply")]
    pub write: Option<String>,
    /// The time of the pass (RFC 3339): every plan compared resolves capacity reservations at
    /// it, as `plan --now` does.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Advise on the running cluster at --now: consolidationPolicy, consolidateAfter and
    /// budget edits, each verified by replaying Karpenter's consolidation for a day.
    #[arg(long, requires = "now")]
    pub running: bool,
    #[command(flatten)]
    pub policies: crate::Policies,
    #[command(flatten)]
    pub gates: crate::Gates,
    #[command(flatten)]
    pub common: crate::Common,
}

pub fn settings(a: &AdviseArgs) -> AdviseSettings {
    AdviseSettings {
        top: a.top,
        time_budget_seconds: a.time_budget,
        exclude_kinds: a.exclude_kinds.clone(),
        exclude_node_pools: a.exclude_node_pools.clone(),
        max_risk: a.max_risk.clone(),
        apply: a.apply,
        running: a.running,
    }
}

/// `--apply N`: the patch alone, so it pipes into `patch -p0`.
pub fn render_patch(a: &Advice) -> String {
    a.applied.as_ref().map(|x| x.patch.clone()).unwrap_or_default()
}

/// `--apply N --write DIR`: write each edited input file under `dir` (its path as given,
/// relative), and say what was written.
pub fn write_files(a: &Advice, dir: &str) -> Result<String, String> {
    let Some(applied) = &a.applied else { return Ok(String::new()) };
    let mut out = String::new();
    for f in &applied.files {
        let rel = std::path::Path::new(&f.name);
        if rel.is_absolute() && dir != "." {
            return Err(format!("{}: an absolute input path cannot be written under {dir}; use --write .", f.name));
        }
        let target = if dir == "." { rel.to_path_buf() } else { std::path::Path::new(dir).join(rel) };
        if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&target, &f.text).map_err(|e| format!("{}: {e}", target.display()))?;
        out.push_str(&format!("wrote {} (advised edit #{})\n", target.display(), applied.rank));
    }
    Ok(out)
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
        let mut t = Table::new(&["#", "KIND", "RISK", "NEW PLAN $/H", "SAVED $/H", "$/MONTH", "GAP RECOVERED"]).right(&[0, 3, 4, 5, 6]);
        for adv in &a.advice {
            t.row(vec![
                adv.rank.to_string(),
                adv.kind.clone(),
                adv.risk.level.to_string(),
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
            for r in &adv.risk.reasons {
                out.push_str(&format!("  risk ({}): {r}\n", adv.risk.level));
            }
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
    if a.advice.iter().any(|x| x.patch.is_some()) {
        out.push_str("\napply one: nodecast advise FILES --apply RANK | patch -p0   (or --apply RANK --write DIR)\n");
    }
    for n in &a.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for w in &a.warnings {
        out.push_str(&format!("warning: {}\n", w.message));
    }
    out
}
