//! Profiles: every documented default of every profile is what a run with that profile
//! gets, a value the scenario states beats the profile, and `rfc`'s table is wtcp's
//! built-in behaviour.

use wtcp_engine::scenario::profile::{Profile, Setting, PROFILES};
use wtcp_engine::scenario::{FlowApp, Scenario};

/// A link, an 802.11 channel and one TCP flow of each algorithm a profile names.
const BASE: &str = r#"
[run]
duration_s = 1.0
[[nodes]]
name = "A"
[[nodes]]
name = "B"
[[nodes]]
name = "C"
[[links]]
a = "A"
b = "B"
rate_mbps = 10.0
delay_ms = 1.0
[[wifi]]
phy = "g"
stations = [{ node = "B" }, { node = "C", x = 10.0 }]
[[flows]]
src = "A"
dst = "C"
[[flows]]
src = "A"
dst = "C"
cc = "reno"
[[flows]]
src = "A"
dst = "C"
cc = "cubic"
"#;

const MSS: f64 = 1000.0;

fn resolve(overrides: &[(String, String)]) -> Scenario {
    Scenario::from_toml_str(BASE, overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// The `--set` overrides that state every entry of `p` in BASE.
fn stated(p: &Profile) -> Vec<(String, String)> {
    let text = |v: Setting| match v {
        Setting::Float(f) if f.is_infinite() => "inf".to_string(),
        Setting::Segments(n) => ((n * MSS) as i64).to_string(),
        other => other.to_value(MSS as i64, 20 * MSS as i64).to_string(),
    };
    let mut out = Vec::new();
    for e in p.entries {
        let (scope, rest) = e.key.split_once('.').unwrap();
        match scope {
            "tcp" => out.push((e.key.to_string(), text(e.value))),
            "links" => out.push((format!("links.0.{rest}"), text(e.value))),
            "wifi" => out.push((format!("wifi.0.{rest}"), text(e.value))),
            "cc" => {
                let (alg, param) = rest.split_once('.').unwrap();
                for (i, name) in ["newreno", "reno", "cubic"].iter().enumerate() {
                    if *name == alg {
                        out.push((format!("flows.{i}.cc_params.{param}"), text(e.value)));
                    }
                }
            }
            _ => unreachable!(),
        }
    }
    out
}

/// Everything a profile can set, as the engine will run it.
fn configs(sc: &Scenario) -> String {
    let flows: Vec<String> = sc
        .flows
        .iter()
        .map(|f| match &f.app {
            FlowApp::Tcp(t) => format!("{:?} {:?}", t.cc, t.tcp),
            FlowApp::Cbr(c) => format!("{c:?}"),
        })
        .collect();
    format!("{:?}\n{:?}\n{}", sc.links.iter().map(|l| &l.queue).collect::<Vec<_>>(), sc.wifi.iter().map(|w| &w.config).collect::<Vec<_>>(), flows.join("\n"))
}

#[test]
fn each_profile_runs_with_exactly_its_documented_defaults() {
    for p in PROFILES {
        let named = resolve(&[("profile".into(), format!("\"{}\"", p.name))]);
        assert_eq!(named.profile, p.name);
        let mut explicit = stated(p);
        explicit.push(("profile".into(), "\"rfc\"".into()));
        let by_hand = resolve(&explicit);
        assert_eq!(configs(&named), configs(&by_hand), "profile {}: the table and the run differ", p.name);
    }
}

#[test]
fn the_rfc_table_is_the_built_in_behaviour() {
    let rfc = PROFILES.iter().find(|p| p.name == "rfc").unwrap();
    assert_eq!(configs(&resolve(&[])), configs(&resolve(&stated(rfc))));
    assert_eq!(resolve(&[]).profile, "rfc");
}

#[test]
fn profiles_differ_from_the_built_in_defaults_where_their_simulators_do() {
    let ns2 = resolve(&[("profile".into(), "\"ns2\"".into())]);
    let FlowApp::Tcp(t) = &ns2.flows[0].app else { panic!() };
    assert_eq!(t.tcp.rtt.min_rto, 200_000_000);
    assert_eq!(t.tcp.rtt.initial_rto, 3_000_000_000);
    assert_eq!(t.tcp.send_buffer_bytes, 20_000);
    assert_eq!(t.tcp.initial_ssthresh_segments, Some(20.0));
    assert!(!t.tcp.delayed_ack);
    assert_eq!(ns2.links[0].queue.limit_packets, Some(50));
    assert_eq!(ns2.wifi[0].config.rts_threshold, Some(0));
    let ns3 = resolve(&[("profile".into(), "\"ns3\"".into())]);
    let FlowApp::Tcp(t) = &ns3.flows[0].app else { panic!() };
    assert_eq!((t.tcp.mss, t.tcp.sack, t.tcp.handshake), (536, true, true));
    let qualnet = resolve(&[("profile".into(), "\"qualnet\"".into())]);
    assert_eq!(qualnet.links[0].queue.limit_bytes, Some(150_000));
}

#[test]
fn a_value_the_scenario_states_beats_the_profile() {
    let sc = resolve(&[("profile".into(), "\"ns2\"".into()), ("tcp.rto_min_s".into(), "1.0".into()), ("links.0.queue".into(), "{ limit_bytes = 9000 }".into())]);
    let FlowApp::Tcp(t) = &sc.flows[0].app else { panic!() };
    assert_eq!(t.tcp.rtt.min_rto, 1_000_000_000);
    assert_eq!(t.tcp.rtt.initial_rto, 3_000_000_000);
    assert_eq!((sc.links[0].queue.limit_packets, sc.links[0].queue.limit_bytes), (None, Some(9000)));
}

#[test]
fn an_unknown_profile_is_an_error_naming_the_profiles() {
    let e = Scenario::from_toml_str(BASE, &[("profile".into(), "\"ns-2\"".into())]).unwrap_err();
    assert_eq!(e.path, "profile");
    assert!(e.message.contains("allowed: rfc, ns2, ns3, qualnet, linux"), "{}", e.message);
}

#[test]
fn the_document_that_is_run_holds_the_filled_values() {
    let sc = resolve(&[("profile".into(), "\"ns2\"".into())]);
    assert_eq!(sc.document["tcp"]["rto_min_s"].as_float(), Some(0.2));
    // Resolving the filled document again changes nothing.
    let again = Scenario::from_value(sc.document.clone(), &[]).unwrap();
    assert_eq!(configs(&sc), configs(&again));
}
