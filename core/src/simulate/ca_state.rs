//! The Cluster Autoscaler's state across the simulator's scan loops (ca_loop.rs): plain data,
//! so `Sim` (sim.rs) can hold it without importing the loop that acts on it (the files of
//! `simulate/` form no import circle, core/tests/module_graph.rs).

use crate::cluster_autoscaler::stepper::Stepper;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// `--scan-interval`.
pub const SCAN_SECONDS: i64 = 10;

/// The Cluster Autoscaler's state across scan loops.
pub struct CaRun {
    pub stepper: Stepper,
    /// Per group: nodes launched so far (their names' counter).
    pub counters: Vec<usize>,
    /// Unneeded since (absolute seconds), by node name.
    pub unneeded: HashMap<String, i64>,
    /// The last removal (absolute seconds): scale-down resumes one scan interval later.
    pub last_delete: Option<i64>,
    /// What the loops did, for the answer (shared with the caller, `CaInput::log`).
    pub log: Rc<RefCell<CaLog>>,
}

/// What the Cluster Autoscaler's loops did over a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaLog {
    /// (simulated second, group, nodes added, decided by, tied with).
    pub scale_ups: Vec<(i64, String, i64, String, Vec<String>)>,
    /// Nodes removed by scale-down, as empty and as underutilised.
    pub removed_empty: usize,
    pub removed_underutilized: usize,
    /// Some loop's expanders ended in the random fallback among several options.
    pub random_ties: bool,
}

/// What a Cluster Autoscaler run is given: the node groups and settings read from the inputs,
/// and the annotations scale-down reads from their documents (the model does not keep them).
pub struct CaInput {
    pub input: crate::node_groups::NodeGroupInput,
    pub facts: crate::cluster_autoscaler::stepper::Facts,
    /// Where the run writes what its loops did (the caller keeps a handle).
    pub log: Rc<RefCell<CaLog>>,
}

impl CaRun {
    pub fn new(stepper: Stepper, log: Rc<RefCell<CaLog>>) -> CaRun {
        let counters = vec![0; stepper.groups().len()];
        CaRun { stepper, counters, unneeded: HashMap::new(), last_delete: None, log }
    }
}
