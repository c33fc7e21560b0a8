//! A group of identical pending pods, the unit the optimiser places by count. Its own file
//! because both the instance (which builds groups) and the zone rules (which constrain them)
//! need it, and the instance holds the zone rules.

/// Identical pending pods (replicas of one spec), placed by count.
#[derive(Debug, Clone)]
pub struct Group {
    /// Pod indices, ascending.
    pub pods: Vec<usize>,
    /// Requests per resource id (`pods: 1` included).
    pub requests: Vec<i64>,
    /// At most this many of the group on one node: 1 under a hostname anti-affinity that
    /// selects the group itself or a host port, `maxSkew` under a hostname spread that counts
    /// it, else unbounded (`affinity::rules` sets it).
    pub per_node: u32,
}

impl Group {
    pub fn count(&self) -> u32 {
        self.pods.len() as u32
    }
}
