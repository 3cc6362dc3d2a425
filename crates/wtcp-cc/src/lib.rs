//! Congestion control for wtcp: every algorithm is a pure state machine.
//!
//! The TCP sender (in `wtcp-engine`) owns sequence space, the retransmission timer
//! and recovery mechanics; an algorithm owns the numbers (cwnd, ssthresh) and decides
//! them from explicit inputs: the time, per-ACK samples, loss events and signals.
//! Nothing here reads a clock, a global or a random source of its own.
//!
//! Layout: [`api`] holds the trait and the types that cross it, [`rtt`] the RFC 6298
//! estimator the sender lends to every hook, [`reno`] the Reno toolkit and the Reno /
//! NewReno algorithms, [`registry`] the name → algorithm table with parameter docs.

pub mod api;
pub mod abc;
pub mod acc;
pub mod bbr;
pub mod bbr3;
pub mod c2tcp;
pub mod contract;
pub mod copa;
pub mod cubic;
pub mod dynamic;
pub mod ewr;
pub mod filters;
pub mod jersey;
pub mod jtcp;
pub mod njplus;
pub mod prairie;
pub mod taichung;
pub mod vegas;
pub mod vegas_ns3;
pub mod veno;
pub mod westwood;
pub mod registry;
pub mod reno;
pub mod rtt;
pub mod testing;
pub mod user;

pub use api::*;
pub use registry::{catalog, check_params, AlgorithmInfo, CcConfig, Order, ParamError, ParamInfo, ParamTable, ParamValue, Range, UnknownAlgorithm};
pub use rtt::{RttConfig, RttEstimator};
pub use user::{register_user, unregister_user, user_algorithm, user_names, UserAlgorithm, UserCc};
