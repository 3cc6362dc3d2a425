//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

use wtcp_engine::{RunResult, Scenario};

/// A two-hop path S -10 Mb/s, 10 ms- BS -2 Mb/s, 1 ms- D with one bulk flow from 0 s.
/// Variations are applied with `--set` style overrides.
pub const TWO_HOP: &str = r#"
name = "two-hop-test"
[run]
duration_s = 20.0
[tcp]
mss_bytes = 1000
[[nodes]]
name = "S"
[[nodes]]
name = "BS"
[[nodes]]
name = "D"
[[links]]
name = "wired"
a = "S"
b = "BS"
rate_mbps = 10.0
delay_ms = 10.0
queue = { limit_packets = 100 }
[[links]]
name = "wireless"
a = "BS"
b = "D"
rate_mbps = 2.0
delay_ms = 1.0
queue = { limit_packets = 100 }
[[flows]]
name = "bulk"
src = "S"
dst = "D"
cc = "newreno"
"#;

pub fn repo_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn owned(overrides: &[(&str, &str)]) -> Vec<(String, String)> {
    overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

pub fn load(rel: &str, overrides: &[(&str, &str)]) -> Scenario {
    let text = std::fs::read_to_string(repo_path(rel)).expect("scenario file");
    Scenario::from_toml_str(&text, &owned(overrides)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn parse(text: &str, overrides: &[(&str, &str)]) -> Scenario {
    Scenario::from_toml_str(text, &owned(overrides)).unwrap_or_else(|e| panic!("{e}"))
}

pub fn two_hop(overrides: &[(&str, &str)]) -> RunResult {
    wtcp_engine::run(&parse(TWO_HOP, overrides))
}

/// The metrics JSON without the wall-clock time (the only non-deterministic field).
pub fn fingerprint(r: &RunResult) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v.as_object_mut().unwrap().remove("loop_cpu_seconds");
    v.to_string()
}
