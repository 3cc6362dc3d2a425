//! The engine's integration tests, one module per file, built as one test binary (one
//! link instead of one per file, and one process whose threads run every test at once:
//! `cargo test -p wtcp-engine --test engine MODULE::`).

// The counting allocator, for the tests that measure a run's heap (`cancel`, `trace_stream`).
#[global_allocator]
static ALLOC: wtcp_engine::heap::CountingAlloc = wtcp_engine::heap::CountingAlloc;

mod common;

mod abc;
mod algorithms;
mod aqm;
mod arq;
mod cancel;
mod capacity_traces;
mod counting;
mod cwnd_limited;
mod delay_metrics;
mod delivery_properties;
mod estimator_bounds;
mod faithful_ewr;
mod faithful_jersey;
mod faithful_schemes;
mod faithful_wifi;
mod frto;
mod handshake;
mod limits;
mod ns3_reference;
mod pcap;
mod profiles;
mod rack;
mod sack;
mod scenario_errors;
mod speed_invariants;
mod tcp_behaviour;
mod tlp;
mod trace_stream;
mod wifi_aqm;
mod wifi_bianchi;
mod wifi_minstrel;
mod wifi_ns3_gate;
mod wifi_ampdu;
mod wifi_phy;
mod wifi_radio;
mod wifi_scenarios;
