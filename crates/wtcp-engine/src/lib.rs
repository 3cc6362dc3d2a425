//! wtcp's engine: a deterministic packet-level simulator of TCP over wired and lossy
//! wireless links.
//!
//! Integer nanosecond time, one binary-heap event queue with FIFO tie-break, one seeded
//! random stream per component, packets pooled and named by index. A run is a pure
//! function of its [`Scenario`]: same input and seed, identical output, bit for bit.

pub mod cpu;
pub mod events;
pub mod heap;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod pcap;
pub mod result;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod wifi;

pub use result::{FlowResult, RunResult, Traces};
pub use scenario::{Scenario, ScenarioError};
pub use sim::{run, run_polled, run_streamed, run_until, run_with, Progress, Stopped, POLL_EVERY, TRACE_CHUNK_ROWS};

/// The engine's version (the workspace version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
