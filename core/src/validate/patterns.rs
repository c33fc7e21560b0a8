//! Hand-written matchers for the regular expressions of the CRDs and for the Go/Kubernetes parsers
//! the runtime validators call. No regex engine: every pattern here is small, and writing it out
//! lets us document the quirks (unanchored patterns, alternation precedence, empty alternatives).
//!
//! Kubernetes evaluates OpenAPI `pattern` with Go's RE2 as a *search*: a pattern without `^`/`$`
//! matches anywhere in the string. In RE2 `.` excludes `\n`, `\s` is `[\t\n\f\r ]`, and `$`
//! (without the `m` flag) matches only at the very end of the text.

use crate::golang::leading_digits;
pub use crate::golang::{duration_nanos as go_duration_nanos, parse_int64};

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` — one DNS-1123 label, without the length limit.
fn dns_label_shape(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => edge(f) && edge(l) && b.iter().all(|&c| edge(c) || c == b'-'),
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*` — DNS-1123 subdomain shape.
pub fn dns_subdomain_shape(s: &str) -> bool {
    s.split('.').all(dns_label_shape)
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` — the name part of a qualified name (non-empty).
pub fn name_part_shape(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// The CRD pattern of requirement keys and taint keys/values (NP-31, NP-45, NP-46):
/// `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
/// Neither part may contain `/`, so splitting at the first `/` is exact. It is the Kubernetes
/// qualified-name grammar without the length limits (those are only checked at runtime).
pub fn crd_qualified_name(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => dns_subdomain_shape(prefix) && name_part_shape(name),
        None => name_part_shape(s),
    }
}

const QNAME_FMT: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS1123_FMT: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// Kubernetes `validation.IsQualifiedName`: the list of violations, with the upstream wording.
pub fn qualified_name_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push("prefix part must be no more than 253 characters".to_string());
                }
                if !dns_subdomain_shape(prefix) {
                    errs.push(format!("prefix part {DNS1123_FMT}"));
                }
            }
            *name
        }
        _ => {
            errs.push(format!("a qualified name {QNAME_FMT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else {
        if name.len() > 63 {
            errs.push("name part must be no more than 63 characters".to_string());
        }
        if !name_part_shape(name) {
            errs.push(format!("name part {QNAME_FMT}"));
        }
    }
    errs
}

/// Label value shape `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$` (empty allowed), no length limit.
pub fn label_value_shape(s: &str) -> bool {
    s.is_empty() || name_part_shape(s)
}

/// Kubernetes `validation.IsValidLabelValue`: the list of violations, with the upstream wording.
pub fn label_value_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !label_value_shape(s) {
        errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string());
    }
    errs
}

/// `(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))` matched in full.
fn decimal(s: &str) -> bool {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    let digits = |x: &str| x.bytes().all(|c| c.is_ascii_digit());
    match frac {
        None => !int.is_empty() && digits(int),
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
    }
}

/// NP-08 quantity pattern:
/// `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`.
pub fn quantity(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    // The number is the longest prefix of digits and dots; the suffix never starts with either.
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    if !decimal(num) {
        return false;
    }
    match suffix {
        "" | "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => true,
        "n" | "u" | "m" | "k" | "M" | "G" | "T" | "P" | "E" => true,
        _ => match suffix.strip_prefix(['e', 'E']) {
            Some(exp) => decimal(exp.strip_prefix(['+', '-']).unwrap_or(exp)),
            None => false,
        },
    }
}

/// One or more `[0-9]+(s|m|h)` groups, matched in full (NP-10/NP-57 without `Never`, NP-58).
pub fn unit_durations(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start || i >= b.len() || !matches!(b[i], b's' | b'm' | b'h') {
            return false;
        }
        i += 1;
    }
    true
}

/// NP-10 / NP-57: `^(([0-9]+(s|m|h))+|Never)$` (case-sensitive `Never`).
pub fn nillable_duration(s: &str) -> bool {
    s == "Never" || unit_durations(s)
}

/// NP-16 budget duration: `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`.
/// Hours and/or minutes (hours first), optionally followed by the literal `0s` that Go's
/// `Duration.String()` appends; seconds other than `0s` are not accepted.
pub fn budget_duration(s: &str) -> bool {
    let tail_ok = |t: &str| t.is_empty() || t == "0s";
    let (d, rest) = leading_digits(s);
    if d.is_empty() {
        return false;
    }
    if let Some(rest) = rest.strip_prefix('m') {
        return tail_ok(rest);
    }
    let Some(rest) = rest.strip_prefix('h') else {
        return false;
    };
    if tail_ok(rest) {
        return true;
    }
    let (d2, rest2) = leading_digits(rest);
    !d2.is_empty() && rest2.strip_prefix('m').is_some_and(tail_ok)
}

/// NP-14 budget nodes: `^((100|[0-9]{1,2})%|[0-9]+)$`.
pub fn budget_nodes(s: &str) -> bool {
    let all_digits = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
    match s.strip_suffix('%') {
        Some(p) => p == "100" || (p.len() <= 2 && all_digits(p)),
        None => all_digits(s),
    }
}

/// NP-15 budget schedule, with RE2 search semantics:
/// `^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`.
///
/// Precedence quirk: `|` binds loosest, so the pattern is `^(@descriptor)` OR `(5 fields)$`.
/// The descriptor branch is anchored only at the start (`@dailyX`, `@hourly whatever` pass) and
/// the five-field branch only at the end, and it is a search: any suffix made of five runs of
/// non-newline characters separated by single whitespace characters matches. Because `.` also
/// matches spaces, "four or more whitespace characters with something between and around them"
/// is enough; runtime cron parsing then decides (see `cron_error`).
pub fn schedule_admission(s: &str) -> bool {
    const DESCRIPTORS: [&str; 7] = ["annually", "yearly", "monthly", "weekly", "daily", "midnight", "hourly"];
    if let Some(rest) = s.strip_prefix('@') {
        if DESCRIPTORS.iter().any(|d| rest.starts_with(d)) {
            return true;
        }
    }
    five_fields_suffix(s)
}

/// NFA simulation of `(.+)\s(.+)\s(.+)\s(.+)\s(.+)$` searched anywhere in `s`.
/// State `2k` = inside the k-th `.+` run (at least one char consumed); state `2k+1` = just
/// consumed the k-th `\s` and waiting for the next run. A new attempt may start at every position.
fn five_fields_suffix(s: &str) -> bool {
    let is_ws = |c: char| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ');
    let mut states = [false; 9];
    for c in s.chars() {
        let dot = c != '\n';
        let mut next = [false; 9];
        for (st, &on) in states.iter().enumerate() {
            if !on {
                continue;
            }
            if st % 2 == 0 {
                if dot {
                    next[st] = true;
                }
                if is_ws(c) && st < 8 {
                    next[st + 1] = true;
                }
            } else if dot {
                next[st + 1] = true;
            }
        }
        if dot {
            next[0] = true; // a fresh search attempt starting at this character
        }
        states = next;
    }
    states[8]
}

/// EC-38 alias format `^[a-zA-Z0-9]+@.+$` (`.` excludes newline).
pub fn alias_format(s: &str) -> bool {
    match s.split_once('@') {
        Some((fam, ver)) => !fam.is_empty() && fam.bytes().all(|c| c.is_ascii_alphanumeric()) && !ver.is_empty() && !ver.contains('\n'),
        None => false,
    }
}

/// Unanchored `<prefix>[0-9a-z]+` (EC-23 `subnet-`, EC-28 `sg-`, EC-41 `ami-`): the prefix followed
/// by at least one lower-case alphanumeric anywhere in the string.
pub fn contains_id(s: &str, prefix: &str) -> bool {
    s.match_indices(prefix).any(|(i, _)| s[i + prefix.len()..].bytes().next().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
}

/// Anchored `^<prefix>[0-9a-z]+$` (EC-32 `cr-`, EC-43 `pg-`).
pub fn exact_id(s: &str, prefix: &str) -> bool {
    s.strip_prefix(prefix).is_some_and(|r| !r.is_empty() && r.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
}

/// EC-32 ownerID `^[0-9]{12}$`.
pub fn owner_id(s: &str) -> bool {
    s.len() == 12 && s.bytes().all(|c| c.is_ascii_digit())
}

/// EC-59 volumeSize, transcribed alternative by alternative:
/// `(?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi` = 1..59000 Gi,
/// `(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G` = 1..64000 G,
/// `([1-9]||[1-5][0-7]|58)Ti` and `([1-9]||[1-5][0-9]|6[0-3]|64)T`. The `||` is an empty
/// alternative, so a bare `Ti` or `T` matches too, and `18Ti`/`19Ti`/`28Ti`... do not (quirks kept).
pub fn volume_size(s: &str) -> bool {
    let (num, unit) = leading_digits(s);
    let n = |x: &str| -> Option<u32> {
        if x.starts_with('0') || x.len() > 6 {
            None
        } else {
            x.parse().ok()
        }
    };
    match unit {
        "Gi" => n(num).is_some_and(|v| (1..=59000).contains(&v)),
        "G" => n(num).is_some_and(|v| (1..=64000).contains(&v)),
        "Ti" => {
            let b = num.as_bytes();
            match b {
                [] => true,
                [d] => (b'1'..=b'9').contains(d),
                [a, c] => ((b'1'..=b'5').contains(a) && (b'0'..=b'7').contains(c)) || num == "58",
                _ => false,
            }
        }
        "T" => num.is_empty() || n(num).is_some_and(|v| (1..=64).contains(&v)),
        _ => false,
    }
}

/// OpenAPI `format: date-time` (RFC 3339): `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub fn rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let dig = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    let sep = |i: usize, c: &[u8]| b.get(i).is_some_and(|x| c.contains(x));
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(se)) =
        (dig(0..4), dig(5..7), dig(8..10), dig(11..13), dig(14..16), dig(17..19))
    else {
        return false;
    };
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return false;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let mdays = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if d == 0 || d > mdays || h > 23 || mi > 59 || se > 59 {
        return false;
    }
    let mut i = 19;
    if sep(i, b".") {
        i += 1;
        let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        i += n;
    }
    match b.get(i..) {
        Some(b"Z") | Some(b"z") => true,
        Some(tz) if tz.len() == 6 && (tz[0] == b'+' || tz[0] == b'-') && tz[3] == b':' => {
            matches!((dig(i + 1..i + 3), dig(i + 4..i + 6)), (Some(th), Some(tm)) if th < 24 && tm < 60)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantity_pattern() {
        for ok in ["1", "+1", "-1", "1.", ".5", "1.5", "100m", "1Ki", "2Gi", "1E", "1e3", "1E-3", "1e.5", "0"] {
            assert!(quantity(ok), "{ok}");
        }
        for bad in ["", ".", "1.2.3", "1ki", "1Kii", "1e", "abc", "1 Gi", "1b", "+", "1e+"] {
            assert!(!quantity(bad), "{bad}");
        }
    }

    #[test]
    fn schedule_pattern() {
        for ok in [
            "* * * * *",
            "0 9 * * mon-fri",
            "@annually",
            "@weekly",
            "@dailyX",
            "@hourly x",
            "a b c d e",
            "x\na b c d e",
            "  a b c d",
            "a b\nc d e",
        ] {
            assert!(schedule_admission(ok), "{ok:?}");
        }
        for bad in ["*", "* * * * ", "@every 1h", "a b c d", "a b c d e\n", "a\n\nb c d e", "", "@Daily"] {
            assert!(!schedule_admission(bad), "{bad:?}");
        }
    }

    #[test]
    fn qualified_names() {
        for ok in ["a", "Test", "test.com/Test", "test.com.com/test", "key-only", "a_b.c"] {
            assert!(crd_qualified_name(ok), "{ok}");
            assert!(qualified_name_errors(ok).is_empty(), "{ok}");
        }
        for bad in ["test.com.com}", "Test.com/test", "test/test/test", "test/", "/test", "", "-a", "a-"] {
            assert!(!crd_qualified_name(bad), "{bad}");
            assert!(!qualified_name_errors(bad).is_empty(), "{bad}");
        }
        let long_prefix = format!("{}/x", "a".repeat(254));
        assert!(crd_qualified_name(&long_prefix));
        assert_eq!(qualified_name_errors(&long_prefix), vec!["prefix part must be no more than 253 characters"]);
        let long_name = "n".repeat(64);
        assert_eq!(qualified_name_errors(&long_name), vec!["name part must be no more than 63 characters"]);
    }

    #[test]
    fn volume_sizes() {
        for ok in ["1Gi", "59000Gi", "64000G", "1G", "Ti", "T", "58Ti", "17Ti", "64T", "9Ti"] {
            assert!(volume_size(ok), "{ok}");
        }
        for bad in ["0Gi", "59001Gi", "64001G", "18Ti", "59Ti", "65T", "01Gi", "20", "20gi", "1.5Gi"] {
            assert!(!volume_size(bad), "{bad}");
        }
    }

    #[test]
    fn go_durations() {
        assert_eq!(go_duration_nanos("1h30m"), Some(5_400_000_000_000));
        assert_eq!(go_duration_nanos("5s5s"), Some(10_000_000_000));
        assert_eq!(go_duration_nanos("1.5s"), Some(1_500_000_000));
        assert_eq!(go_duration_nanos("-1s"), Some(-1_000_000_000));
        assert_eq!(go_duration_nanos("0"), Some(0));
        assert_eq!(go_duration_nanos("2562047h"), Some(2_562_047 * 3_600_000_000_000));
        assert_eq!(go_duration_nanos("2562048h"), None);
        for bad in ["", "1", "1d", "h", ".s", "1.5", "abc", "99999999999999999999999h"] {
            assert_eq!(go_duration_nanos(bad), None, "{bad}");
        }
    }

    #[test]
    fn misc_patterns() {
        assert!(rfc3339("2024-01-02T03:04:05Z"));
        assert!(rfc3339("2024-02-29T03:04:05.123+02:00"));
        assert!(!rfc3339("2023-02-29T03:04:05Z"));
        assert!(!rfc3339("2024-01-02"));
        assert!(contains_id("xsubnet-1", "subnet-"));
        assert!(!contains_id("subnet-", "subnet-"));
        assert!(!contains_id("subnet-A", "subnet-"));
        assert!(exact_id("pg-0a", "pg-") && !exact_id("pg-0A", "pg-") && !exact_id("xpg-1", "pg-"));
        assert_eq!(parse_int64("+5"), Some(5));
        assert_eq!(parse_int64("007"), Some(7));
        assert_eq!(parse_int64(" 1"), None);
        assert_eq!(parse_int64("1.0"), None);
        assert!(alias_format("al2@latest") && !alias_format("@latest") && !alias_format("al2023@"));
    }
}
