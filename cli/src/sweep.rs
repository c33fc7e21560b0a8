//! `nodecast sweep SWEEP.yaml`: every combination of a sweep spec (README, "Capacity planning
//! sweeps"), one CSV row each.
//!
//! The CLI reads the spec and the files it names (relative to the spec's directory) and runs the
//! combinations on a pool of threads over the pure core: a combination is a function of the spec
//! alone, so threads share nothing but a counter, and the rows are put back in combination order
//! whatever the thread count — the output is the same bytes with `--jobs 1` or `--jobs 32`, and
//! the same as Python's `nodecast.sweep(...).to_csv()`.

use clap::{Args, ValueEnum};
use indexmap::IndexMap;
use nodecast::sweep;
use serde_json::Value;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
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
    /// Write the table to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Only check the spec and print the number of combinations and the columns.
    #[arg(long)]
    dry_run: bool,
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

fn read(path: &Path) -> Result<String, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    crate::read_bounded(f, &path.display().to_string()).map_err(|crate::Fatal(m)| m)
}

fn print_errors(errors: &[nodecast::error::InputError]) {
    let mut stderr = std::io::stderr().lock();
    for e in errors {
        let _ = writeln!(stderr, "error: {e}");
    }
    let _ = writeln!(stderr, "{} error{}", errors.len(), if errors.len() == 1 { "" } else { "s" });
}

/// Exit code 0 when at least one combination answered (failed combinations are rows with their
/// error), 1 when every combination failed (the table is still written: each row says why), 2
/// when the spec or a file it names cannot be used.
pub fn run(a: SweepArgs) -> Result<u8, String> {
    let spec_path = Path::new(&a.spec);
    let text = read(spec_path)?;
    let dir = spec_path.parent().unwrap_or(Path::new(""));
    let listed = match sweep::referenced_files(&text, Some(&a.spec)) {
        Ok(f) => f,
        Err(errors) => {
            print_errors(&errors);
            return Ok(2);
        }
    };
    let mut files = IndexMap::new();
    for f in listed {
        let path = if Path::new(&f).is_absolute() { Path::new(&f).to_path_buf() } else { dir.join(&f) };
        files.insert(f, read(&path)?);
    }
    let sw = match sweep::load(&text, Some(&a.spec), &files) {
        Ok(s) => s,
        Err(errors) => {
            print_errors(&errors);
            return Ok(2);
        }
    };
    if a.output == SweepOutput::Parquet && a.out.is_none() && !a.dry_run {
        return Err("-o parquet writes a binary file: give it with --out FILE".into());
    }
    if a.dry_run {
        println!("{} combinations ({}); columns: {}", sw.len(), sw.operation().name(), sw.columns().join(","));
        return Ok(0);
    }
    let jobs =
        a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).clamp(1, 256).min(sw.len().max(1));
    let progress = (a.progress || std::io::stderr().is_terminal()) && !a.no_progress;
    let started = Instant::now();
    let rows = run_all(&sw, jobs, progress);
    let failed = rows.iter().filter(|r| r.iter().any(|c| c == "failure")).count();
    let table = match a.output {
        SweepOutput::Csv => sweep::render_csv(sw.columns(), &rows).into_bytes(),
        SweepOutput::Json => (serde_json::json!({"columns": sw.columns(), "rows": rows}).to_string() + "\n").into_bytes(),
        SweepOutput::Parquet => crate::parquet_out::render(sw.columns(), &rows)?,
    };
    match &a.out {
        Some(path) => std::fs::write(path, table).map_err(|e| format!("--out {path}: cannot write: {e}"))?,
        None => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(&table).and_then(|_| stdout.flush());
        }
    }
    eprintln!(
        "nodecast sweep: {} combinations ({}), {} failed, {:.1} s on {jobs} thread{}",
        rows.len(),
        sw.operation().name(),
        failed,
        started.elapsed().as_secs_f64(),
        if jobs == 1 { "" } else { "s" }
    );
    if !rows.is_empty() && failed == rows.len() {
        eprintln!("nodecast sweep: every combination failed (each row's error column says why)");
        return Ok(1);
    }
    Ok(0)
}

/// Every combination on `jobs` threads; rows in combination order.
fn run_all(sw: &sweep::Sweep, jobs: usize, progress: bool) -> Vec<Vec<Value>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Vec<Value>>>> = Mutex::new(vec![None; sw.len()]);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= sw.len() {
                    break;
                }
                let (row, _) = sw.run(i, false);
                slots.lock().expect("no thread panics holding it")[i] = Some(row);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    let secs = started.elapsed().as_secs_f64();
                    let eta = secs / n as f64 * (sw.len() - n) as f64;
                    eprint!("\r{n}/{} combinations, {secs:.0} s, ETA {eta:.0} s   ", sw.len());
                }
            });
        }
    });
    if progress {
        eprintln!();
    }
    slots.into_inner().expect("threads joined").into_iter().map(|r| r.expect("every combination ran")).collect()
}
