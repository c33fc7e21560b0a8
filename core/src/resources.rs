//! Resource vectors: dense arrays of milli-units indexed by a per-solve resource id.
//!
//! `cpu`, `memory`, `pods` and `ephemeral-storage` have fixed ids; every other resource name met
//! while lowering (nvidia.com/gpu, aws.amazon.com/neuron, vpc.amazonaws.com/efa, ...) gets the next
//! id. Vectors are inline up to 8 entries, so sums and fit checks never allocate in practice.

use crate::quantity::{format_milli, Unit};
use indexmap::IndexMap;
use smallvec::SmallVec;

pub type ResourceId = u16;

pub const CPU: ResourceId = 0;
pub const MEMORY: ResourceId = 1;
pub const PODS: ResourceId = 2;
pub const EPHEMERAL_STORAGE: ResourceId = 3;
/// The special limit key counting nodes (R5.3.5).
pub const NODES_KEY: &str = "nodes";

/// Names of the resources of one solve, in id order.
#[derive(Debug, Clone)]
pub struct ResourceNames {
    names: Vec<String>,
}

impl Default for ResourceNames {
    fn default() -> Self {
        ResourceNames { names: vec!["cpu".into(), "memory".into(), "pods".into(), "ephemeral-storage".into()] }
    }
}

impl ResourceNames {
    pub fn intern(&mut self, name: &str) -> ResourceId {
        if let Some(i) = self.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        (self.names.len() - 1) as ResourceId
    }

    pub fn get(&self, name: &str) -> Option<ResourceId> {
        self.names.iter().position(|n| n == name).map(|i| i as ResourceId)
    }

    pub fn name(&self, id: ResourceId) -> &str {
        &self.names[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn unit(&self, id: ResourceId) -> Unit {
        let n = self.name(id);
        if n == "memory" || n.ends_with("storage") || n.starts_with("hugepages-") {
            Unit::Bytes
        } else {
            Unit::Decimal
        }
    }

    /// Render a vector as `{name: quantity}`, omitting zeros, in id order.
    pub fn render(&self, v: &Resources) -> IndexMap<String, String> {
        v.iter_nonzero().map(|(id, q)| (self.name(id).to_string(), format_milli(q, self.unit(id)))).collect()
    }
}

/// A resource vector; missing trailing entries are zero.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Resources(SmallVec<[i64; 8]>);

impl Resources {
    pub fn new() -> Self {
        Resources(SmallVec::new())
    }

    pub fn get(&self, id: ResourceId) -> i64 {
        self.0.get(id as usize).copied().unwrap_or(0)
    }

    pub fn set(&mut self, id: ResourceId, v: i64) {
        let i = id as usize;
        if self.0.len() <= i {
            if v == 0 {
                return;
            }
            self.0.resize(i + 1, 0);
        }
        self.0[i] = v;
    }

    pub fn add_to(&mut self, id: ResourceId, v: i64) {
        let cur = self.get(id);
        self.set(id, cur.saturating_add(v));
    }

    pub fn add(&mut self, other: &Resources) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_add(*b);
        }
    }

    pub fn sub(&mut self, other: &Resources) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_sub(*b);
        }
    }

    pub fn plus(&self, other: &Resources) -> Resources {
        let mut r = self.clone();
        r.add(other);
        r
    }

    /// Element-wise maximum.
    pub fn max_with(&mut self, other: &Resources) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = (*a).max(*b);
        }
    }

    /// Fits (R4.2.1): no negative availability, and every request ≤ availability.
    pub fn fits_in(&self, avail: &Resources) -> bool {
        if avail.0.iter().any(|v| *v < 0) {
            return false;
        }
        self.0.iter().enumerate().all(|(i, r)| *r <= avail.0.get(i).copied().unwrap_or(0))
    }

    /// `self + extra` fits in `avail`, without building the sum.
    pub fn fits_with(&self, extra: &Resources, avail: &Resources) -> bool {
        if avail.0.iter().any(|v| *v < 0) {
            return false;
        }
        let n = self.0.len().max(extra.0.len());
        (0..n).all(|i| {
            let need = self.0.get(i).copied().unwrap_or(0).saturating_add(extra.0.get(i).copied().unwrap_or(0));
            need <= avail.0.get(i).copied().unwrap_or(0)
        })
    }

    /// The resources where `self` exceeds `avail`, as (id, need, have).
    pub fn shortfalls(&self, avail: &Resources) -> Vec<(ResourceId, i64, i64)> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let have = avail.0.get(i).copied().unwrap_or(0);
                (*r > have).then_some((i as ResourceId, *r, have))
            })
            .collect()
    }

    pub fn iter_nonzero(&self) -> impl Iterator<Item = (ResourceId, i64)> + '_ {
        self.0.iter().enumerate().filter(|(_, v)| **v != 0).map(|(i, v)| (i as ResourceId, *v))
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|v| *v == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_rules() {
        let mut req = Resources::new();
        req.set(CPU, 1000);
        let mut avail = Resources::new();
        avail.set(CPU, 1000);
        assert!(req.fits_in(&avail));
        req.set(5, 1);
        assert!(!req.fits_in(&avail));
        req.set(5, 0);
        assert!(req.fits_in(&avail), "a zero request for an unknown resource fits (8.22)");
        avail.set(MEMORY, -1);
        assert!(!req.fits_in(&avail), "negative availability fits nothing");
    }
}
