//! `nodecast sweep SWEEP.yaml`: every combination of a sweep spec (README, "Capacity planning
//! sweeps"), one CSV row each.
//!
//! The CLI reads the spec and the files it names (relative to the spec's directory, and confined
//! to that directory or the working directory unless `--allow-any-file`) and runs the combinations on a pool of threads over
//! the pure core: a combination is a function of the spec alone, so threads share nothing but a
//! counter, and the rows are written in combination order whatever the thread count — the output
//! is the same bytes with `--jobs 1` or `--jobs 32`, and the same as Python's
//! `nodecast.sweep(...).to_csv()`.
//!
//! Rows are written as they are computed: a row waits only for the rows before it, and a worker
//! does not start a combination more than `window` ahead of the last row written, so memory holds
//! at most `window` rows whatever the number of combinations (issue 29: a sweep of long labels
//! buffered every row until 4 GB). `--out` is checked before the first combination runs.

use crate::out::{self, WriteError};
use crate::{Failure, Fatal};
use clap::{Args, ValueEnum};
use indexmap::IndexMap;
use nodecast::sweep;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The sweep spec (YAML or JSON, `kind: Sweep`); file paths in it are relative to its directory.
    #[arg(value_name = "SWEEP")]
    spec: String,
    /// Worker threads (default: the number of CPUs).
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,
    /// Output: the table as CSV, as JSON {columns, rows}, or as a Parquet file (needs --out).
    #[arg(short = 'o', long, value_enum, default_value_t = SweepOutput::Csv)]
    output: SweepOutput,
    /// Write the table to FILE instead of stdout (its directory must exist; it may not be the
    /// spec or a file the spec names).
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Only check the spec and print the number of combinations and the columns.
    #[arg(long)]
    dry_run: bool,
    /// Let the spec name files anywhere. By default a file it names must resolve (after `..` and
    /// symbolic links) inside the spec's directory or the working directory; any other is
    /// refused without being read.
    #[arg(long)]
    allow_any_file: bool,
    /// Progress on stderr (default: when stderr is a terminal).
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    #[arg(long, hide = true)]
    no_progress: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SweepOutput {
    Csv,
    Json,
    Parquet,
}

fn read(path: &Path) -> Result<String, Fatal> {
    let f = File::open(path).map_err(|e| Fatal(format!("{}: cannot read: {e}", path.display())))?;
    crate::read_bounded(f, &path.display().to_string())
}

fn print_errors(errors: &[nodecast::error::InputError]) {
    let mut text = String::new();
    for e in errors {
        text.push_str(&format!("error: {e}\n"));
    }
    text.push_str(&format!("{} error{}\n", errors.len(), if errors.len() == 1 { "" } else { "s" }));
    // Exit code 2 says it already; a closed stderr has nowhere else to go.
    let _ = out::write_err(&text);
}

/// The path a file name resolves to with every symbolic link and `..` followed; for a file that
/// does not exist yet, its directory's resolved path and its name.
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    match path.canonicalize() {
        Ok(p) => Ok(p),
        Err(_) => {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let name = path.file_name().ok_or_else(|| std::io::Error::other("names no file"))?;
            Ok(parent.canonicalize()?.join(name))
        }
    }
}

/// The files the spec names, read from its directory. A file that resolves outside both the
/// spec's directory and the working directory is refused before it is opened (a spec handed over
/// by someone else must not read `~/.ssh/id_rsa` into a row's error message) unless
/// `--allow-any-file`. The working directory is allowed too because a project keeps its specs
/// beside its manifests (examples/sweeps/week-capacity.yaml reads `../nodepools/...`).
fn read_files(a: &SweepArgs, listed: Vec<String>) -> Result<IndexMap<String, String>, Fatal> {
    let spec_path = Path::new(&a.spec);
    let dir = match spec_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let home = dir.canonicalize().map_err(|e| Fatal(format!("{}: cannot resolve the spec's directory: {e}", a.spec)))?;
    let cwd = Path::new(".").canonicalize().ok();
    let mut files = IndexMap::new();
    for f in listed {
        let path = if Path::new(&f).is_absolute() { PathBuf::from(&f) } else { dir.join(&f) };
        let real = path.canonicalize().map_err(|e| Fatal(format!("{}: cannot read: {e}", path.display())))?;
        let inside = real.starts_with(&home) || cwd.as_ref().is_some_and(|c| real.starts_with(c)) || lexically_below_cwd(&path);
        if !a.allow_any_file && !inside {
            return Err(Fatal(format!(
                "{}: the file {f:?} it names is outside the spec's directory ({}) and the working directory; it was not read (--allow-any-file to read it anyway)",
                a.spec,
                home.display()
            )));
        }
        let text = read(&path)?;
        files.insert(f, text);
    }
    Ok(files)
}

/// A relative path that stays below the working directory when its `..` are taken literally
/// (`examples/sweeps/../nodepools/x.yaml`) and is not itself a symbolic link: the working
/// directory may be a tree of links to a checkout (docs_check's scratch directory), whose
/// resolved paths lie elsewhere.
fn lexically_below_cwd(path: &Path) -> bool {
    use std::path::Component;
    let mut depth = 0usize;
    for c in path.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            _ => return false,
        }
    }
    depth > 0 && !path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
}

/// `--out`, checked before any combination runs: not a directory, in a directory that exists,
/// and not the spec or one of the files it names (the table would overwrite its own inputs).
fn check_out(a: &SweepArgs, out_path: &str, listed: &[String]) -> Result<PathBuf, Fatal> {
    let path = Path::new(out_path);
    if path.is_dir() {
        return Err(Fatal(format!("--out {out_path}: is a directory; give a file name")));
    }
    let target = resolved(path).map_err(|e| match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) if !p.is_dir() => Fatal(format!("--out {out_path}: the directory {} does not exist", p.display())),
        _ => Fatal(format!("--out {out_path}: {e}")),
    })?;
    let spec_path = Path::new(&a.spec);
    let dir = spec_path.parent().unwrap_or(Path::new(""));
    let mut inputs = vec![("the sweep spec".to_string(), spec_path.to_path_buf())];
    for f in listed {
        let p = if Path::new(f).is_absolute() { PathBuf::from(f) } else { dir.join(f) };
        inputs.push((format!("{f:?}, a file the spec names"), p));
    }
    for (what, p) in inputs {
        if p.canonicalize().is_ok_and(|p| p == target) {
            return Err(Fatal(format!("--out {out_path}: is {what}; writing the table would overwrite it")));
        }
    }
    Ok(target)
}

/// Exit code 0 when at least one combination answered (failed combinations are rows with their
/// error), 1 when every combination failed (the table is still written: each row says why), 2
/// when the spec or a file it names cannot be used, 3 when the table cannot be written.
pub fn run(a: SweepArgs) -> Result<u8, Failure> {
    let text = read(Path::new(&a.spec))?;
    let listed = match sweep::referenced_files(&text, Some(&a.spec)) {
        Ok(f) => f,
        Err(errors) => {
            print_errors(&errors);
            return Ok(2);
        }
    };
    let files = read_files(&a, listed.clone())?;
    let sw = match sweep::load(&text, Some(&a.spec), &files) {
        Ok(s) => s,
        Err(errors) => {
            print_errors(&errors);
            return Ok(2);
        }
    };
    if a.output == SweepOutput::Parquet && a.out.is_none() && !a.dry_run {
        return Err(Fatal("-o parquet writes a binary file: give it with --out FILE".into()).into());
    }
    #[cfg(not(feature = "parquet"))]
    if a.output == SweepOutput::Parquet && !a.dry_run {
        return Err(Fatal(NO_PARQUET.into()).into());
    }
    let out_path = a.out.as_deref().map(|o| check_out(&a, o, &listed)).transpose()?;
    if a.dry_run {
        let line = format!("{} combinations ({}); columns: {}\n", sw.len(), sw.operation().name(), sw.columns().join(","));
        out::write_out(&out::escape_controls(&line))?;
        return Ok(0);
    }
    let jobs =
        a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).clamp(1, 256).min(sw.len().max(1));
    let progress = (a.progress || out::stderr_is_terminal()) && !a.no_progress;
    let started = Instant::now();
    let mut sink = match (&out_path, a.out.as_deref()) {
        (Some(path), Some(shown)) => {
            let what = format!("--out {shown}");
            let file = File::create(path).map_err(|e| WriteError::new(what.clone(), e))?;
            Sink::open(a.output, &sw, Target::File(BufWriter::with_capacity(1 << 16, file)), what)?
        }
        _ => {
            // Rows shown on a terminal get their control characters escaped; a file or pipe gets
            // the table's bytes unchanged.
            let escape = std::io::IsTerminal::is_terminal(&std::io::stdout());
            Sink::open(a.output, &sw, Target::Stdout(out::stdout_writer()?, escape), "stdout".into())?
        }
    };
    let (count, failed) = run_all(&sw, jobs, progress, &mut sink)?;
    sink.finish()?;
    let mut summary = format!(
        "nodecast sweep: {count} combinations ({}), {failed} failed, {:.1} s on {jobs} thread{}\n",
        sw.operation().name(),
        started.elapsed().as_secs_f64(),
        if jobs == 1 { "" } else { "s" }
    );
    let all_failed = count > 0 && failed == count;
    if all_failed {
        summary.push_str("nodecast sweep: every combination failed (each row's error column says why)\n");
    }
    out::write_err(&summary)?;
    Ok(if all_failed { 1 } else { 0 })
}

/// Where the table goes.
enum Target {
    File(BufWriter<File>),
    Stdout(BufWriter<Box<dyn Write>>, bool),
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Target::File(w) => w.write(buf),
            Target::Stdout(w, _) => w.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Target::File(w) => w.flush(),
            Target::Stdout(w, _) => w.flush(),
        }
    }
}

/// What `-o parquet` says in a CLI built without the `parquet` feature (`make demo`'s build
/// leaves the Parquet writer's dependencies out to compile in less time).
#[cfg(not(feature = "parquet"))]
const NO_PARQUET: &str = "-o parquet: this nodecast was built without Parquet output (the CLI's `parquet` feature, \
     on in `make build` and `cargo install`, off in `make demo`'s quick build): use -o csv or -o json, or build with `make build`";

enum Format {
    Csv {
        escape: bool,
    },
    Json {
        first: bool,
    },
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::parquet_out::Writer<BufWriter<File>>>),
}

/// The table being written, row by row.
struct Sink {
    what: String,
    format: Format,
    target: Option<Target>,
}

impl Sink {
    fn open(output: SweepOutput, sw: &sweep::Sweep, target: Target, what: String) -> Result<Sink, Failure> {
        let columns = sw.columns();
        let err = |e: std::io::Error| WriteError::new(what.clone(), e);
        let mut target = target;
        let format = match output {
            SweepOutput::Csv => {
                let escape = matches!(target, Target::Stdout(_, true));
                let header: Vec<Value> = columns.iter().map(|c| Value::String(c.clone())).collect();
                let line = sweep::csv_line(&header);
                target.write_all(if escape { out::escape_controls(&line) } else { line.into() }.as_bytes()).map_err(err)?;
                Format::Csv { escape }
            }
            SweepOutput::Json => {
                // The bytes of `{"columns": [...], "rows": [...]}` as serde_json writes it
                // compact, one row at a time.
                let head =
                    format!("{{\"columns\":{},\"rows\":[", serde_json::to_string(columns).map_err(std::io::Error::from).map_err(err)?);
                target.write_all(head.as_bytes()).map_err(err)?;
                Format::Json { first: true }
            }
            #[cfg(not(feature = "parquet"))]
            SweepOutput::Parquet => return Err(Fatal(NO_PARQUET.into()).into()),
            #[cfg(feature = "parquet")]
            SweepOutput::Parquet => {
                let Target::File(file) = target else {
                    return Err(Fatal("-o parquet writes a binary file: give it with --out FILE".into()).into());
                };
                let w = crate::parquet_out::Writer::new(file, columns, &sw.column_samples())
                    .map_err(|e| WriteError::new(what.clone(), std::io::Error::other(e)))?;
                return Ok(Sink { what, format: Format::Parquet(Box::new(w)), target: None });
            }
        };
        Ok(Sink { what, format, target: Some(target) })
    }

    fn push(&mut self, row: Vec<Value>) -> Result<(), WriteError> {
        let what = &self.what;
        let err = |e: std::io::Error| WriteError::new(what.clone(), e);
        match (&mut self.format, self.target.as_mut()) {
            (Format::Csv { escape }, Some(t)) => {
                let line = sweep::csv_line(&row);
                t.write_all(if *escape { out::escape_controls(&line) } else { line.into() }.as_bytes()).map_err(err)
            }
            (Format::Json { first }, Some(t)) => {
                if !*first {
                    t.write_all(b",").map_err(err)?;
                }
                *first = false;
                serde_json::to_writer(&mut *t, &row).map_err(std::io::Error::from).map_err(err)
            }
            #[cfg(feature = "parquet")]
            (Format::Parquet(w), _) => w.push(row).map_err(|e| WriteError::new(what.clone(), std::io::Error::other(e))),
            _ => unreachable!("text formats always have a target"),
        }
    }

    fn finish(self) -> Result<(), WriteError> {
        let what = self.what;
        let err = |e: std::io::Error| WriteError::new(what.clone(), e);
        match (self.format, self.target) {
            (Format::Csv { .. }, Some(mut t)) => t.flush().map_err(err),
            (Format::Json { .. }, Some(mut t)) => t.write_all(b"]}\n").and_then(|_| t.flush()).map_err(err),
            #[cfg(feature = "parquet")]
            (Format::Parquet(w), _) => w.finish().map_err(|e| WriteError::new(what.clone(), std::io::Error::other(e))),
            _ => unreachable!("text formats always have a target"),
        }
    }
}

/// Rows computed but not yet written, and where writing stands.
struct Queue {
    written: usize,
    ready: BTreeMap<usize, Vec<Value>>,
    stop: bool,
}

/// Every combination on `jobs` threads, each row written (in combination order) as soon as the
/// rows before it are. Returns how many rows were written and how many of them failed.
fn run_all(sw: &sweep::Sweep, jobs: usize, progress: bool, sink: &mut Sink) -> Result<(usize, usize), WriteError> {
    // At most this many rows are held at once: enough that no thread waits for a slow
    // neighbour often, few enough that rows of any length stay a small multiple of one row.
    let window = 4 * jobs + 16;
    let next = AtomicUsize::new(0);
    let queue = Mutex::new(Queue { written: 0, ready: BTreeMap::new(), stop: false });
    let changed = Condvar::new();
    let started = Instant::now();
    let mut failed = 0;
    let mut progress_ok = progress;
    let result = std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= sw.len() {
                    break;
                }
                {
                    let mut q = queue.lock().expect("no thread panics holding it");
                    while i >= q.written + window && !q.stop {
                        q = changed.wait(q).expect("no thread panics holding it");
                    }
                    if q.stop {
                        break;
                    }
                }
                let (row, _) = sw.run(i, false);
                queue.lock().expect("no thread panics holding it").ready.insert(i, row);
                changed.notify_all();
            });
        }
        let stop = |e: WriteError| {
            queue.lock().expect("no thread panics holding it").stop = true;
            changed.notify_all();
            e
        };
        for i in 0..sw.len() {
            let row = {
                let mut q = queue.lock().expect("no thread panics holding it");
                loop {
                    if let Some(row) = q.ready.remove(&i) {
                        break row;
                    }
                    q = changed.wait(q).expect("no thread panics holding it");
                }
            };
            failed += usize::from(row.iter().any(|c| c == "failure"));
            sink.push(row).map_err(stop)?;
            queue.lock().expect("no thread panics holding it").written = i + 1;
            changed.notify_all();
            if progress_ok {
                let n = i + 1;
                let secs = started.elapsed().as_secs_f64();
                let eta = secs / n as f64 * (sw.len() - n) as f64;
                // Progress is a courtesy: a stderr that stops taking it ends the progress line,
                // and the summary at the end reports the failure.
                progress_ok = out::write_err_own(&format!("\r{n}/{} combinations, {secs:.0} s, ETA {eta:.0} s   ", sw.len())).is_ok();
            }
        }
        Ok(sw.len())
    });
    if progress_ok {
        let _ = out::write_err("\n");
    }
    result.map(|n| (n, failed))
}
