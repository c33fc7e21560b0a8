//! nodecast: predict what Karpenter v1 would provision and consolidate, offline and
//! deterministically. No I/O: no files, network, clock or environment; time is an input.

pub mod catalog;
pub mod error;
pub mod labels;
pub mod manifest;
pub mod model;
pub mod quantity;
pub mod requirements;
pub mod resources;
pub mod taints;
