//! The result table as CSV, and the JSON entry points bindings use (`sweep-files`,
//! `sweep-expand`, `sweep-run`, `sweep-request`, `sweep-csv`), so Python and the CLI share one
//! reading of the spec and one rendering of the rows.

use super::{load, referenced_files};
use crate::error::InputError;
use crate::json::Answer;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A CSV field: numbers as JSON writes them (shortest round-trip form), null as empty, strings
/// quoted when they hold a comma, quote, line break or edge space (RFC 4180).
fn field(v: &Value, out: &mut String) {
    match v {
        Value::Null => {}
        Value::String(s) => {
            if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
                out.push('"');
                out.push_str(&s.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(s);
            }
        }
        Value::Array(_) | Value::Object(_) => field(&Value::String(v.to_string()), out),
        other => out.push_str(&other.to_string()),
    }
}

/// The table as CSV: a header line, then one line per row, `\n` line ends.
pub fn render_csv(columns: &[String], rows: &[Vec<Value>]) -> String {
    let header: Vec<Value> = columns.iter().map(|c| Value::String(c.clone())).collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        out.push_str(&csv_line(row));
    }
    out
}

/// One line of [`render_csv`] (the header is the columns as strings), so a front end can write
/// the rows as they come instead of holding the table.
pub fn csv_line(row: &[Value]) -> String {
    let mut out = String::new();
    for (k, v) in row.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        field(v, &mut out);
    }
    out.push('\n');
    out
}

/// What the bindings send: the spec text (YAML or JSON) with its name, the texts of the files it
/// names, and for `sweep-run` the combinations to run.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct CallRequest {
    name: Option<String>,
    text: String,
    files: IndexMap<String, String>,
    indices: Vec<usize>,
    index: usize,
    answers: bool,
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Expanded<'a> {
    operation: &'static str,
    count: usize,
    columns: &'a [String],
}

#[derive(Serialize)]
struct Rows {
    rows: Vec<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answers: Option<Vec<Option<String>>>,
}

#[derive(Serialize)]
struct OneRequest {
    function: &'static str,
    request: crate::json::Request,
}

/// The function names [`call`] accepts; the Python binding exposes each as a sweep entry point.
pub const FUNCTIONS: [&str; 5] = ["sweep-files", "sweep-expand", "sweep-run", "sweep-request", "sweep-csv"];

fn compact<T: Serialize>(answer: &Answer<T>) -> String {
    serde_json::to_string(answer)
        .unwrap_or_else(|e| format!("{{\"status\":\"failure\",\"errors\":[{{\"code\":\"internal\",\"message\":\"{e}\"}}]}}"))
}

/// JSON in, JSON out (compact: these answers are data passed between processes). `sweep-csv`
/// returns the CSV text itself on success.
pub fn call(function: &str, request_json: &str) -> String {
    let req: CallRequest = match serde_json::from_str(request_json) {
        Ok(r) => r,
        Err(e) => {
            let err =
                InputError::new("invalid-request", format!("not a sweep call: {e}")).help("{name, text, files, indices, index, answers}");
            return compact(&Answer::<()>::failure("Sweep", vec![err]));
        }
    };
    let name = req.name.as_deref();
    match function {
        "sweep-files" => match referenced_files(&req.text, name) {
            Ok(files) => compact(&Answer::success("Sweep", serde_json::json!({ "files": files }))),
            Err(e) => compact(&Answer::<()>::failure("Sweep", e)),
        },
        "sweep-csv" => render_csv(&req.columns, &req.rows),
        "sweep-expand" | "sweep-run" | "sweep-request" => {
            let sweep = match load(&req.text, name, &req.files) {
                Ok(s) => s,
                Err(e) => return compact(&Answer::<()>::failure("Sweep", e)),
            };
            let out_of_range = |i: usize| {
                let e = InputError::new("invalid-request", format!("combination {i} does not exist; the sweep has {}", sweep.len()));
                compact(&Answer::<()>::failure("Sweep", vec![e]))
            };
            match function {
                "sweep-expand" => compact(&Answer::success(
                    "Sweep",
                    Expanded { operation: sweep.operation().name(), count: sweep.len(), columns: sweep.columns() },
                )),
                "sweep-request" => {
                    if req.index >= sweep.len() {
                        return out_of_range(req.index);
                    }
                    match sweep.request(req.index) {
                        Ok(request) => compact(&Answer::success("Sweep", OneRequest { function: sweep.operation().name(), request })),
                        Err(msg) => compact(&Answer::<()>::failure("Sweep", vec![InputError::new("invalid-edit", msg)])),
                    }
                }
                _ => {
                    if let Some(&i) = req.indices.iter().find(|&&i| i >= sweep.len()) {
                        return out_of_range(i);
                    }
                    let mut rows = Vec::with_capacity(req.indices.len());
                    let mut answers = Vec::new();
                    for &i in &req.indices {
                        let (row, answer) = sweep.run(i, req.answers);
                        rows.push(row);
                        answers.push(answer);
                    }
                    compact(&Answer::success("Sweep", Rows { rows, answers: req.answers.then_some(answers) }))
                }
            }
        }
        other => {
            let e = InputError::new("unknown-function", format!("unknown function {other:?}")).help(FUNCTIONS.join(", "));
            compact(&Answer::<()>::failure("Error", vec![e]))
        }
    }
}

/// The rows of a `sweep-run` answer, for tests and front ends written in Rust.
pub fn rows_of(answer_json: &str) -> Option<Vec<Vec<Value>>> {
    let v: Value = serde_json::from_str(answer_json).ok()?;
    serde_json::from_value(v.get("rows")?.clone()).ok()
}
