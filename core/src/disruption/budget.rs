//! Disruption budgets (spec §7) at an injected `now` (UTC); schedules are `crate::cron`'s.

use crate::model::{Budget, BudgetNodes};

/// Allowed disruptions for one reason (D-7.3): min over active budgets that apply; `None` =
/// unlimited. Any schedule error makes the whole pool allow 0 (fail closed, D-7.3.2).
pub fn allowed(budgets: &[Budget], reason: &str, nodes: usize, now: i64) -> Option<i64> {
    let mut out: Option<i64> = None;
    for b in budgets {
        let Ok(active) = b.window.active(now) else {
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
        let b = |nodes, reasons: &[&str]| Budget::new(nodes, reasons.iter().map(|s| s.to_string()).collect(), None, None);
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
        let bad = Budget::new(BudgetNodes::Count(5), vec!["Drifted".into()], Some("0 0 * * tue-mon".into()), Some(3600));
        assert!(matches!(bad.window, crate::cron::BudgetWindow::Unparsable(_)));
        assert_eq!(allowed(&[bad], "Empty", 3, 0), Some(0));
    }

    #[test]
    fn schedule_is_stored_parsed() {
        // Weekdays 09:00 UTC for 8 hours; 2025-03-05 (a Wednesday) 12:00 UTC is inside.
        let b = Budget::new(BudgetNodes::Count(0), vec![], Some("0 9 * * mon-fri".into()), Some(8 * 3600));
        let crate::cron::BudgetWindow::Scheduled { schedule, duration } = &b.window else {
            panic!("expected a parsed schedule, got {:?}", b.window)
        };
        assert_eq!(*duration, 8 * 3600);
        assert_eq!(*schedule, crate::cron::Schedule::parse("0 9 * * 1-5").unwrap());
        let wednesday_noon = 1_741_176_000;
        assert_eq!(b.window.active(wednesday_noon), Ok(true));
        assert_eq!(allowed(std::slice::from_ref(&b), "Empty", 10, wednesday_noon), Some(0));
        // 18:00 the same day: the window closed at 17:00; no budget applies.
        assert_eq!(b.window.active(wednesday_noon + 6 * 3600), Ok(false));
        assert_eq!(allowed(&[b], "Empty", 10, wednesday_noon + 6 * 3600), None);
        assert_eq!(Budget::new(BudgetNodes::Count(1), vec![], None, None).window, crate::cron::BudgetWindow::Always);
    }
}
