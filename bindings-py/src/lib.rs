//! `nodecast._native`: the private native module behind the `nodecast` Python package.
//!
//! It only translates. One function, `call(function, request_json) -> str`, hands the request
//! JSON to [`nodecast::call`] and returns the answer JSON unchanged: the same bytes
//! `nodecast <function> -o json` prints, without the final newline. Everything else (reading
//! files, converting dicts, typed results, errors) is the Python facade's job
//! (`python/nodecast/__init__.py`).
//!
//! The GIL is released while the core computes, so Python threads run meanwhile and several
//! threads can plan at once. Ctrl-C still works: the core polls a cancellation hook in its long
//! loops ([`nodecast::interrupt`]); ours takes the GIL at most every 20 ms to run Python's signal
//! handlers, and the `KeyboardInterrupt` (or whatever a handler raised) ends the call. The core never panics by design; should it ever, the panic is caught
//! here and raised as a Python `RuntimeError`, never unwound into the interpreter.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

mod sweep;

/// How often a running call looks for pending signals: well under the ~100 ms a person notices,
/// and rare enough that taking the GIL costs nothing measurable.
const SIGNAL_CHECK_EVERY: Duration = Duration::from_millis(20);

/// Run `work` (with the GIL released) under a cancellation hook that runs Python's signal
/// handlers every [`SIGNAL_CHECK_EVERY`]; the exception a handler raises (`KeyboardInterrupt` for
/// Ctrl-C) stops the core and is raised here. A panic becomes a `RuntimeError`.
fn interruptible(py: Python<'_>, work: impl FnOnce() -> String + Send) -> PyResult<String> {
    // Python runs signal handlers on the main thread only; elsewhere the hook never takes the
    // GIL, so calls on worker threads run exactly as fast as before.
    let main = on_main_thread(py);
    let outcome = py.detach(|| {
        guarded(|| {
            let raised: Rc<RefCell<Option<PyErr>>> = Rc::default();
            let seen = raised.clone();
            let mut last = Instant::now();
            let hook = move || {
                if !main || last.elapsed() < SIGNAL_CHECK_EVERY {
                    return false;
                }
                last = Instant::now();
                match Python::attach(|py| py.check_signals()) {
                    Ok(()) => false,
                    Err(e) => {
                        *seen.borrow_mut() = Some(e);
                        true
                    }
                }
            };
            // The clock whole-call budgets read (advise's `time_budget_seconds`).
            let started = Instant::now();
            let timed = move || nodecast::interrupt::with_clock(move || started.elapsed().as_secs_f64(), work);
            nodecast::interrupt::run(hook, timed).map_err(|_| raised.take())
        })
    });
    match outcome {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(Some(raised))) => Err(raised),
        Ok(Err(None)) => Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("nodecast call interrupted")),
        Err(panic) => Err(PyRuntimeError::new_err(panic)),
    }
}

/// Whether this is Python's main thread (where signal handlers run); true when unsure.
fn on_main_thread(py: Python<'_>) -> bool {
    let check = || -> PyResult<bool> {
        let threading = py.import("threading")?;
        let main = threading.call_method0("main_thread")?.getattr("ident")?;
        main.eq(threading.call_method0("get_ident")?)
    };
    check().unwrap_or(true)
}

/// Run `f`, turning a panic into an error message instead of unwinding further.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic payload".to_string());
        format!("nodecast core panicked: {what} (this is a bug in nodecast; please report it with the request)")
    })
}

/// Run facade function `function` ("plan", "consolidate", "explain", "validate", "catalog") on a
/// JSON request and return the answer JSON. Never raises for bad input: a bad request is a
/// failure answer. Raises RuntimeError only if the core panicked, and KeyboardInterrupt (or a
/// signal handler's exception) when a signal arrives while the core computes.
#[pyfunction]
fn call(py: Python<'_>, function: &str, request_json: &str) -> PyResult<String> {
    interruptible(py, || nodecast::call(function, request_json))
}

/// Test hook: panic inside the same guard `call` uses, to check that a panic becomes a
/// RuntimeError and the interpreter survives.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, message: &str) -> PyResult<String> {
    let message = message.to_string();
    py.detach(move || guarded::<String>(move || panic!("{message}"))).map_err(PyRuntimeError::new_err)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(call, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_call, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::guarded;

    #[test]
    fn a_panic_becomes_an_error() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = guarded(|| panic!("boom {}", 1));
        std::panic::set_hook(prev);
        let msg = r.unwrap_err();
        assert!(msg.contains("boom 1"), "{msg}");
    }

    #[test]
    fn answers_pass_through_unchanged() {
        let json = guarded(|| nodecast::call("catalog", r#"{"query": {"gpu": true, "limit": 1}}"#)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["kind"], "CatalogQuery");
        assert_eq!(v["status"], "success");
        assert_eq!(v["count"], 1);
        let bad = guarded(|| nodecast::call("plan", "{not json")).unwrap();
        assert!(bad.contains("invalid-request"), "{bad}");
    }
}
