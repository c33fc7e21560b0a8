//! Cancellation: a caller-supplied hook that the engine's long loops poll, so a front end can stop
//! a call early (Python's Ctrl-C, a wasm deadline) without the core reading a clock or signals.
//!
//! The hook is passed in with [`run`] and lives for that call on the calling thread only. The
//! loops that can run long (a scheduling pass per pod, the simulator per event, the consolidation
//! searches per candidate) call [`poll`]; once the hook says stop, every later poll says stop too,
//! the loops unwind quickly and [`run`] reports [`Interrupted`] instead of the (partial, hence
//! meaningless) answer. Without a hook, [`poll`] is one thread-local read and always `false`, so
//! answers are unchanged.
//!
//! The hook is called on every poll: it should be cheap or rate-limit itself (the bindings check a
//! clock and act at most every few milliseconds).

use std::cell::{Cell, RefCell};

/// A call stopped by its hook before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the call was interrupted before it finished")
    }
}

impl std::error::Error for Interrupted {}

type Hook = Box<dyn FnMut() -> bool>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    static STOPPED: Cell<bool> = const { Cell::new(false) };
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Run `work` with `should_stop` polled by the engine's long loops. `Err(Interrupted)` when the
/// hook returned `true` at some poll (the work's own result is dropped: it was cut short).
/// Nested calls keep the outer hook.
pub fn run<R>(should_stop: impl FnMut() -> bool + 'static, work: impl FnOnce() -> R) -> Result<R, Interrupted> {
    if ACTIVE.with(Cell::get) {
        let r = work();
        return if STOPPED.with(Cell::get) { Err(Interrupted) } else { Ok(r) };
    }
    /// Clears the hook even if `work` unwinds, so a caught panic leaves no stale hook behind.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            HOOK.with(|h| h.borrow_mut().take());
            ACTIVE.with(|a| a.set(false));
            STOPPED.with(|s| s.set(false));
        }
    }
    HOOK.with(|h| *h.borrow_mut() = Some(Box::new(should_stop)));
    STOPPED.with(|s| s.set(false));
    ACTIVE.with(|a| a.set(true));
    let _reset = Reset;
    let r = work();
    if STOPPED.with(Cell::get) {
        Err(Interrupted)
    } else {
        Ok(r)
    }
}

/// Whether the current call should stop now (sticky: once `true`, `true` until [`run`] returns).
#[inline]
pub fn poll() -> bool {
    if !ACTIVE.with(Cell::get) {
        return false;
    }
    if STOPPED.with(Cell::get) {
        return true;
    }
    // A hook that re-enters the engine (it should not) finds the hook busy and is not re-run.
    let stop = HOOK.with(|h| h.try_borrow_mut().ok().and_then(|mut h| h.as_mut().map(|f| f())).unwrap_or(false));
    if stop {
        STOPPED.with(|s| s.set(true));
    }
    stop
}

/// A clock the front end lends the engine's whole-call time budgets (`advise`'s
/// `timeBudgetSeconds`): seconds since the call started, non-decreasing. The core never reads a
/// clock itself; without one lent, [`seconds`] is `None` and such budgets bind nothing.
type Clock = Box<dyn FnMut() -> f64>;

thread_local! {
    static CLOCK: RefCell<Option<Clock>> = const { RefCell::new(None) };
}

/// Run `work` with `clock` readable through [`seconds`] on this thread. Nested calls keep the
/// outer clock.
pub fn with_clock<R>(clock: impl FnMut() -> f64 + 'static, work: impl FnOnce() -> R) -> R {
    if CLOCK.with(|c| c.try_borrow().map(|c| c.is_some()).unwrap_or(true)) {
        return work();
    }
    /// Takes the clock back even if `work` unwinds.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CLOCK.with(|c| c.borrow_mut().take());
        }
    }
    CLOCK.with(|c| *c.borrow_mut() = Some(Box::new(clock)));
    let _reset = Reset;
    work()
}

/// The lent clock's reading, seconds; `None` without one (see [`with_clock`]).
pub fn seconds() -> Option<f64> {
    CLOCK.with(|c| c.try_borrow_mut().ok().and_then(|mut c| c.as_mut().map(|f| f())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_clock_is_read_only_inside_its_call() {
        assert_eq!(seconds(), None);
        let mut t = 0.0;
        let r = with_clock(
            move || {
                t += 1.5;
                t
            },
            || (seconds(), seconds(), with_clock(|| 99.0, seconds)),
        );
        assert_eq!(r, (Some(1.5), Some(3.0), Some(4.5)), "the outer clock stays lent");
        assert_eq!(seconds(), None, "the clock is gone after the call");
    }

    #[test]
    fn without_a_hook_nothing_stops() {
        assert!(!poll());
        assert_eq!(run(|| false, || (poll(), 7)), Ok((false, 7)));
        assert!(!poll(), "the hook is gone after run");
    }

    #[test]
    fn the_stop_is_sticky_and_reported() {
        let mut n = 0;
        let r = run(
            move || {
                n += 1;
                n >= 3
            },
            || (0..10).filter(|_| poll()).count(),
        );
        assert_eq!(r, Err(Interrupted));
        assert!(!poll(), "a later call starts clean");
        assert_eq!(run(|| false, poll), Ok(false));
    }

    #[test]
    fn a_long_plan_stops_at_the_first_poll_that_says_stop() {
        // 400 pods, one NodePool: the scheduling pass polls once per pod.
        let mut text = String::from(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n      requirements: []\n",
        );
        for i in 0..400 {
            text.push_str(&format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}\n"));
        }
        let req = crate::Request { inputs: vec![crate::Input { name: None, text }], ..Default::default() };
        let polls = std::rc::Rc::new(Cell::new(0u32));
        let seen = polls.clone();
        let r = run(
            move || {
                seen.set(seen.get() + 1);
                seen.get() >= 50
            },
            || crate::plan(&req),
        );
        assert_eq!(r.err(), Some(Interrupted));
        assert_eq!(polls.get(), 50, "no poll after the stop calls the hook again");
        // The same request without a stop answers normally.
        let whole = run(|| false, || crate::plan(&req).to_json()).unwrap();
        assert_eq!(whole, crate::plan(&req).to_json());
    }
}
