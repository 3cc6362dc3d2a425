//! The network: routing, link directions (queue, transmitter, pipe) and impairments.

pub mod abc;
pub mod build;
pub mod capacity;
pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod link;
pub mod loss;
pub mod qdisc;
pub mod queue;
pub mod routing;

pub use link::{DropCause, LinkDir};
