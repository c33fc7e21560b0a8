//! The sweep entry points of `nodecast._native` (README, "Capacity planning sweeps"): JSON in,
//! JSON out, all the work in `nodecast::sweep`, the GIL released while it runs so a process or
//! Ray worker's batch does not hold the interpreter.

use pyo3::prelude::*;

/// `function` ∈ `sweep-files`, `sweep-expand`, `sweep-run`, `sweep-request`, `sweep-csv`;
/// `request_json` is `{name, text, files, indices, index, answers, columns, rows}` as each needs.
#[pyfunction]
pub fn sweep_call(py: Python<'_>, function: &str, request_json: &str) -> PyResult<String> {
    crate::interruptible(py, || nodecast::sweep::call(function, request_json))
}
