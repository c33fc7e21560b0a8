//! The engine's inside, for the project's own benches, fuzzers, conformance runner and tests:
//! exactly the items they reach, re-exported under the path of the module that defines them.
//! Hidden from the docs and not a stable API: the engine's modules themselves are
//! `pub(crate)`, so nothing else of them is public (see docs/architecture.md, "Public surface").

/// Decoding manifests (fuzzing, decode-rate measurements, the limits' tests).
pub mod manifest {
    pub use crate::manifest::{decode, decode_streamed, streamable, MAX_DOCUMENTS};
}

/// Building the normalised model from a request's sources.
pub mod load {
    pub use crate::load::model;
}

/// The normalised model and what the conformance runner reads of it.
pub mod model {
    pub use crate::model::Model;
    /// Instance types as the model holds them.
    pub mod instance_type {
        pub use crate::model::instance_type::InstanceType;
    }
}

/// The catalog: building it, its limits, time-dependent prices.
pub mod catalog {
    pub use crate::catalog::{build, MAX_PRICE};
    /// Offerings as they stand at a given time.
    pub mod resolve {
        pub use crate::catalog::resolve::at_time;
    }
}

/// One provisioning pass, without rendering.
pub mod scheduling {
    pub use crate::scheduling::{solve, BaselineMemo};
}

/// A pass's solution rendered into a plan.
pub mod provision {
    pub use crate::provision::{render, render_with, RenderOptions};
}

/// The disruption controller's decision at a time.
pub mod disruption {
    pub use crate::disruption::{decide, decide_action, parse_now};
}

/// The request bounds of lowering.
pub mod lower {
    pub use crate::lower::{MAX_POOL_TYPE_PAIRS, MAX_REQUEST_PODS};
}

/// DRA device templates of the AWS types (the oracle's inputs).
pub mod dra {
    pub use crate::dra::AttrValue;
    /// The AWS types' device templates.
    pub mod aws {
        pub use crate::dra::aws::templates;
    }
}

/// Quantities (the quantity fuzzer and the invariant tests).
pub mod quantity {
    pub use crate::quantity::{format_milli, parse_milli, QuantityError, Unit};
}

/// Requirement algebra (the requirements fuzzer).
pub mod requirements {
    pub use crate::requirements::{Operator, Requirement, Requirements};
}

/// Label interning (the requirements fuzzer).
pub mod labels {
    pub use crate::labels::Interner;
}
