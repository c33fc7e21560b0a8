use super::*;

fn ts(s: &str) -> i64 {
    s.parse::<jiff::Timestamp>().unwrap().as_second()
}

/// Every line of the fixture robfig/cron v3 wrote (tools/cron_fixture): the parse error, or the
/// next hit after `now − duration` and Karpenter's "active" verdict.
#[test]
fn agrees_with_robfig_line_by_line() {
    let text = include_str!("testdata/robfig.tsv");
    let mut checked = 0;
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let [schedule, now, duration, next, verdict] = cols[..] else { panic!("bad fixture line {line:?}") };
        let parsed = Schedule::parse(schedule);
        if next == "error" {
            assert_eq!(parsed.err().map(|e| e.0).as_deref(), Some(verdict), "{schedule:?}");
        } else {
            let s = parsed.unwrap_or_else(|e| panic!("{schedule:?}: {e}"));
            let (now, duration): (i64, i64) = (now.parse().unwrap(), duration.parse().unwrap());
            let want = if next == "zero" { None } else { Some(next.parse::<i64>().unwrap()) };
            assert_eq!(s.next(now - duration), want, "{schedule:?} after {}", now - duration);
            assert_eq!(budget_active(Some(schedule), Some(duration), now), Ok(verdict == "true"), "{schedule:?} at {now} for {duration}s");
        }
        checked += 1;
    }
    assert!(checked > 800, "{checked} lines");
}

#[test]
fn windows_from_the_spec() {
    let active = |s: &str, now: &str, hours: i64| budget_active(Some(s), Some(hours * 3600), ts(now)).unwrap();
    assert!(active("@yearly", "2024-01-01T12:00:00Z", 24));
    assert!(active("@daily", "2024-01-07T00:00:00Z", 48));
    assert!(!active("30 6 * * SUN", "2024-01-07T00:00:00Z", 6));
    assert!(active("0 9 * * 1-5", "2025-03-05T12:00:00Z", 8)); // a Wednesday
    assert!(!active("0 9 * * 1-5", "2025-03-08T12:00:00Z", 8)); // a Saturday
    assert!(!active("0 9 * * 1-5", "2025-03-05T17:00:00Z", 8)); // the window's end is exclusive
                                                                // A schedule without a duration is active only if it never fires (the zero time).
    assert_eq!(budget_active(Some("0 9 * * *"), None, ts("2025-03-05T09:00:00Z")), Ok(false));
    assert_eq!(budget_active(Some("0 0 30 2 *"), None, ts("2025-03-05T09:00:00Z")), Ok(true));
    assert_eq!(budget_active(None, None, 0), Ok(true));
    assert!(budget_active(None, Some(3600), 0).is_err(), "a duration without a schedule is the empty schedule");
}

/// A rare schedule and the longest window cost a bounded number of steps (the former
/// minute-by-minute scan took seconds): every field loop moves by at least a minute and the
/// search stops five years ahead.
#[test]
fn rare_schedules_are_cheap() {
    let s = Schedule::parse("59 23 29 2 1").unwrap();
    for y in 0..50 {
        let t = ts("2001-03-01T00:00:00Z") + y * 365 * 86_400;
        if let Some(hit) = s.next(t) {
            assert!(hit > t);
        }
    }
    assert_eq!(Schedule::parse("0 0 31 2 *").unwrap().next(0), None);
}
