//! Disruption budgets (spec §7) at an injected `now` (UTC); schedules are `crate::cron`'s.

use crate::model::{Budget, BudgetNodes};

/// Allowed disruptions for one reason (D-7.3): min over active budgets that apply; `None` =
/// unlimited. Any schedule error makes the whole pool allow 0 (fail closed, D-7.3.2).
pub fn allowed(budgets: &[Budget], reason: &str, nodes: usize, now: i64) -> Option<i64> {
    let mut out: Option<i64> = None;
    for b in budgets {
        let Ok(active) = crate::cron::budget_active(b.schedule.as_deref(), b.duration, now) else {
            return Some(0);
        };
        let applies = b.reasons.is_empty() || b.reasons.iter().any(|r| r == reason);
        if !active || !applies {
            continue;
        }
        let v = match b.nodes {
            BudgetNodes::Count(c) => i64::from(c),
            BudgetNodes::Percent(p) => (i64::from(p) * nodes as i64 + 99) / 100,
        };
        out = Some(out.map_or(v, |o: i64| o.min(v)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_combine_per_reason() {
        let b = |nodes, reasons: &[&str]| Budget {
            nodes,
            reasons: reasons.iter().map(|s| s.to_string()).collect(),
            schedule: None,
            duration: None,
        };
        let budgets = vec![
            b(BudgetNodes::Count(10), &[]),
            b(BudgetNodes::Percent(100), &[]),
            b(BudgetNodes::Count(5), &["Drifted"]),
            b(BudgetNodes::Count(4), &["Empty"]),
        ];
        assert_eq!(allowed(&budgets, "Empty", 100, 0), Some(4));
        assert_eq!(allowed(&budgets, "Drifted", 100, 0), Some(5));
        assert_eq!(allowed(&budgets, "Underutilized", 100, 0), Some(10));
        assert_eq!(allowed(&[b(BudgetNodes::Percent(50), &[])], "Empty", 3, 0), Some(2));
        assert_eq!(allowed(&[b(BudgetNodes::Percent(10), &[])], "Empty", 0, 0), Some(0));
        assert_eq!(allowed(&[], "Empty", 3, 0), None);
        let bad = Budget {
            nodes: BudgetNodes::Count(5),
            reasons: vec!["Drifted".into()],
            schedule: Some("0 0 * * tue-mon".into()),
            duration: Some(3600),
        };
        assert_eq!(allowed(&[bad], "Empty", 3, 0), Some(0));
    }
}
