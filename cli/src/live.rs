//! Live, read-only input (issue 36): `--context`, `--kubeconfig` and `--in-cluster` list the kinds
//! nodecast reads from a running cluster and hand them to the core as one more input, a JSON
//! `kind: List` — exactly the text `--snapshot FILE` writes, so `nodecast plan FILE` gives the
//! same answer. The core never does I/O; only this module talks to a cluster, with `list` only.
//!
//! The kinds, and the ClusterRole that grants exactly them, are in README.md ("Live cluster").
//! Without the `live` cargo feature the flags exist but refuse to run, so a file-only build says
//! why instead of failing to parse its own documentation's commands.

use crate::Fatal;
use clap::Args;
use nodecast::Input;

/// Where the cluster is read from; given to plan, explain, consolidate, simulate and validate.
#[derive(Args, Debug, Clone, Default)]
pub struct LiveArgs {
    /// Read the running cluster of this kubeconfig context (list only; docs/live-export.md):
    /// NodePools, EC2NodeClasses, NodeClaims, Nodes, Pods, workloads, DaemonSets, PDBs, ...
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// The kubeconfig to read the cluster from (default: $KUBECONFIG, else ~/.kube/config), at
    /// its current context unless --context.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<String>,
    /// Read the cluster this pod runs in, with its service account's token.
    #[arg(long, conflicts_with_all = ["context", "kubeconfig"])]
    pub in_cluster: bool,
    /// Also write what was read from the cluster to FILE (one JSON `kind: List`; never a
    /// Secret): the same command on FILE instead of the cluster gives the same answer.
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<String>,
}

/// The name the kubectl plugin is installed under (`kubectl nodecast plan` runs it); so
/// invoked without files, nodecast reads the current context.
pub const PLUGIN_NAME: &str = "kubectl-nodecast";

impl LiveArgs {
    /// Whether the cluster is read: a live flag, or the plugin name with no FILE given.
    pub fn wanted(&self, files: &[String]) -> bool {
        self.context.is_some() || self.kubeconfig.is_some() || self.in_cluster || (files.is_empty() && invoked_as_plugin())
    }
}

fn invoked_as_plugin() -> bool {
    std::env::args_os()
        .next()
        .and_then(|a| std::path::Path::new(&a).file_name().map(|n| n.to_string_lossy().into_owned()))
        .is_some_and(|n| n == PLUGIN_NAME)
}

/// When a cluster was read: the annotation of the `kind: List` a read makes (and `--snapshot`
/// writes), so that the snapshot replays at the same clock.
pub const READ_AT: &str = "nodecast/read-at";

/// The first bytes of what a read makes: a `kind: List` whose annotations say when it was read.
pub fn list_header(read_at: &str) -> String {
    format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{{\"annotations\":{{\"{READ_AT}\":\"{read_at}\"}}}},\"items\":[")
}

/// The time a snapshot among `inputs` was read (the first one's), from its [`list_header`].
fn snapshot_read_at(inputs: &[Input]) -> Option<String> {
    inputs.iter().find_map(|i| {
        let rest = i.text.strip_prefix(list_header("").strip_suffix("\"}},\"items\":[")?)?;
        let (at, _) = rest.split_once('"')?;
        Some(at.to_string())
    })
}

/// When what the inputs hold was read: the cluster's read, or a snapshot's among the FILEs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadAt {
    pub at: Option<String>,
    /// From the cluster just read (not a snapshot file).
    pub live: bool,
}

/// The inputs of a subcommand that reads files or a cluster: FILEs as given, then the cluster
/// (when a live flag is given) as one more input named after its snapshot file or context.
/// `files` must not be empty without a live flag. Returns when the inputs were read.
pub fn add_cluster(live: &LiveArgs, files: &[String], inputs: &mut Vec<Input>) -> Result<ReadAt, Fatal> {
    if !live.wanted(files) {
        if files.is_empty() {
            return Err(Fatal(
                "no input: give FILE... (manifests), or read a running cluster with --context NAME, --kubeconfig FILE or --in-cluster"
                    .into(),
            ));
        }
        if let Some(s) = &live.snapshot {
            return Err(Fatal(format!(
                "--snapshot {s}: only with --context, --kubeconfig or --in-cluster (it writes what was read from the cluster)"
            )));
        }
        return Ok(ReadAt { at: snapshot_read_at(inputs), live: false });
    }
    let at = now_rfc3339();
    inputs.push(read_cluster(live, &at)?);
    Ok(ReadAt { at: Some(at), live: true })
}

#[cfg(not(feature = "live"))]
fn read_cluster(_live: &LiveArgs, _read_at: &str) -> Result<Input, Fatal> {
    Err(Fatal(
        "this nodecast was built without the `live` feature: it reads files only (export the cluster as docs/live-export.md shows, or build with `cargo build -p nodecast-cli --features live`)".into(),
    ))
}

#[cfg(feature = "live")]
fn read_cluster(live: &LiveArgs, read_at: &str) -> Result<Input, Fatal> {
    let text = cluster::read(live, read_at)?;
    let name = match &live.snapshot {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| Fatal(format!("--snapshot {path}: cannot write: {e}")))?;
            // The input is named after the file, so that answers naming their source (skipped
            // objects, errors) are the same bytes when the file is given instead of the cluster.
            path.clone()
        }
        None => cluster::source_name(live),
    };
    Ok(Input { name: Some(name), text })
}

#[cfg(feature = "live")]
mod cluster;

/// The clock of a command: `--now` as given; else the time the inputs were read (a cluster
/// read now, or the snapshot a FILE holds), said on stderr; with other files alone, none.
pub fn clock(now: &Option<String>, read: &ReadAt, live: &LiveArgs) -> Option<String> {
    match (now, &read.at) {
        (Some(now), _) => Some(now.clone()),
        (None, Some(at)) => {
            note_clock(at, read.live, live);
            Some(at.clone())
        }
        (None, None) => None,
    }
}

/// The system clock in RFC 3339 (UTC, whole seconds): the default `--now` of a command that
/// reads a cluster, whose objects' ages and budgets are the cluster's now.
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    rfc3339(secs)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (days to a civil date: the
/// proleptic Gregorian calendar in 400-year eras).
fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3_600, rem % 3_600 / 60, rem % 60)
}

/// Says on stderr which clock an answer used: the time of the read, recorded in the snapshot
/// (which therefore replays at the same clock, byte for byte).
fn note_clock(now: &str, from_cluster: bool, live: &LiveArgs) {
    let what = if from_cluster { "the time the cluster was read" } else { "the time the snapshot was read" };
    let again = match (&live.snapshot, from_cluster) {
        (Some(f), true) => format!("; {f} records it: `nodecast ... {f}` gives the same answer"),
        _ => String::new(),
    };
    let _ = crate::out::write_err(&format!("nodecast: --now {now} ({what}){again}\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seconds_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        // 2024 is a leap year: the day after Feb 28.
        assert_eq!(rfc3339(1_709_164_800), "2024-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_930_000), "2026-11-29T05:26:40Z");
    }

    #[test]
    fn a_snapshot_says_when_it_was_read() {
        let text = format!("{}\n{{\"apiVersion\":\"v1\",\"kind\":\"Node\"}}\n]}}\n", list_header("2026-11-29T10:00:00Z"));
        let inputs =
            [Input { name: Some("pool.yaml".into()), text: "kind: NodePool\n".into() }, Input { name: Some("snap.json".into()), text }];
        assert_eq!(snapshot_read_at(&inputs).as_deref(), Some("2026-11-29T10:00:00Z"));
        assert_eq!(snapshot_read_at(&inputs[..1]), None);
        let read = add_cluster(&LiveArgs::default(), &["pool.yaml".into(), "snap.json".into()], &mut inputs.to_vec()).ok();
        assert_eq!(read, Some(ReadAt { at: Some("2026-11-29T10:00:00Z".into()), live: false }));
        // --now wins over the read time.
        assert_eq!(
            clock(&Some("2030-01-01T00:00:00Z".into()), &read.unwrap_or_default(), &LiveArgs::default()).as_deref(),
            Some("2030-01-01T00:00:00Z")
        );
    }

    #[test]
    fn files_without_a_live_flag_need_no_cluster() {
        let live = LiveArgs::default();
        let mut inputs = Vec::new();
        assert_eq!(add_cluster(&live, &["a.yaml".into()], &mut inputs).ok(), Some(ReadAt::default()));
        assert!(inputs.is_empty());
        let Err(Fatal(msg)) = add_cluster(&live, &[], &mut inputs) else { panic!("no input accepted") };
        assert!(msg.contains("--context"), "{msg}");
        let snap = LiveArgs { snapshot: Some("s.json".into()), ..Default::default() };
        let Err(Fatal(msg)) = add_cluster(&snap, &["a.yaml".into()], &mut inputs) else { panic!("--snapshot without a cluster") };
        assert!(msg.starts_with("--snapshot s.json"), "{msg}");
    }
}
