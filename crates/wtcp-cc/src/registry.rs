//! The algorithm registry: names, typed parameters, documentation, and construction.
//!
//! A scenario names an algorithm (`cc = "newreno"`) and may give a parameter table; the
//! table is deserialised into that algorithm's parameter struct (unknown keys rejected).
//! Adding an algorithm is one line in the `registry!` invocation below.

use serde::de::{Deserializer, Error as _, IntoDeserializer};
use serde::Deserialize;

use crate::api::{CongestionControl, ReceiverControl, RecoveryStyle};
use crate::reno::{self, Reno, RenoParams};
use crate::user::{self, UserCc};
use crate::{abc, acc, bbr, bbr3, c2tcp, copa, cubic, dynamic, ewr, jersey, jtcp, njplus, prairie, taichung, vegas, veno, westwood};

/// Documentation of one parameter, for `wtcp algorithms`, and the values it may take.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub name: &'static str,
    pub unit: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
    /// The values allowed; a scenario giving another value is refused ([`check_params`]).
    pub range: Range,
}

/// Largest value of a parameter counted in segments (a window, a threshold on a backlog):
/// 10^9 segments, a window of 1 TB at 1000-byte segments, beyond what any send or receive
/// buffer within the resource budget of a run holds.
pub const MAX_SEGMENTS: f64 = 1e9;
/// Largest window-sized parameter in bytes: 10^15, 10^9 segments of the largest MSS
/// allowed (65495 bytes) rounded up.
pub const MAX_WINDOW_BYTES: f64 = 1e15;
/// Largest dimensionless gain or scale (a pacing or cwnd gain, CUBIC's C): 100, two
/// orders of magnitude above the published values (1.25 to 2.89, C = 0.4).
pub const MAX_GAIN: f64 = 100.0;
/// Longest time a parameter may give, seconds: the longest run (`run.duration_s`).
pub const MAX_SECONDS: f64 = 1e7;
/// Largest window counted in RTTs (an estimator or warning window): 1000 RTTs, beyond which
/// the estimate no longer follows the path within any run's length at LAN or WAN RTTs.
pub const MAX_RTTS: f64 = 1000.0;

/// The values one parameter may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A switch or a named choice: the parameter's type admits only valid values.
    Any,
    /// A finite number from `min` to `max` (an end is excluded when its `open` flag is set).
    /// A number given to a parameter that also takes a name (e.g. `"initial_window"`) is
    /// checked against it too.
    Num { min: f64, min_open: bool, max: f64, max_open: bool },
    /// A nested table of parameters.
    Table(&'static [ParamInfo]),
}

impl Range {
    /// `min <= x <= max`.
    pub const fn closed(min: f64, max: f64) -> Range {
        Range::Num { min, min_open: false, max, max_open: false }
    }
    /// `min < x <= max`.
    pub const fn above(min: f64, max: f64) -> Range {
        Range::Num { min, min_open: true, max, max_open: false }
    }
    /// `min < x < max`.
    pub const fn open(min: f64, max: f64) -> Range {
        Range::Num { min, min_open: true, max, max_open: true }
    }
    /// `min <= x < max`.
    pub const fn below(min: f64, max: f64) -> Range {
        Range::Num { min, min_open: false, max, max_open: true }
    }
    /// `x >= min`, for integer parameters whose type bounds them above.
    pub const fn at_least(min: f64) -> Range {
        Range::Num { min, min_open: false, max: f64::INFINITY, max_open: true }
    }

    /// Why `v` is not allowed, or `None` if it is.
    pub fn refuse(&self, v: f64) -> Option<String> {
        self.refuse_named(v, "x")
    }

    /// As [`Range::refuse`], the allowed values written with the parameter's `name`.
    pub fn refuse_named(&self, v: f64, name: &str) -> Option<String> {
        let Range::Num { min, min_open, max, max_open } = *self else { return None };
        let low_ok = if min_open { v > min } else { v >= min };
        let high_ok = if max_open { v < max } else { v <= max };
        if v.is_finite() && low_ok && high_ok {
            return None;
        }
        Some(format!("is {}; allowed: {}", fmt_num(v), self.describe(name)))
    }

    /// The allowed values as text, `x` standing for the value: `0 <= x <= 1`.
    pub fn describe(&self, x: &str) -> String {
        match *self {
            Range::Any => "any value of its type".to_string(),
            Range::Table(_) => "a table of the parameters listed".to_string(),
            Range::Num { min, min_open, max, max_open } => {
                let lo = if min_open { "<" } else { "<=" };
                let hi = if max_open { "<" } else { "<=" };
                if max.is_infinite() {
                    format!("{x} {} {}", if min_open { ">" } else { ">=" }, fmt_num(min))
                } else {
                    format!("{} {lo} {x} {hi} {}", fmt_num(min), fmt_num(max))
                }
            }
        }
    }
}

/// A number as a user would write it: integers without a fraction, large ones as `1e9`.
pub fn fmt_num(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".to_string() } else { "-inf".to_string() }
    } else if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A constraint between two numeric parameters of one algorithm: `low <= high`.
#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    pub low: &'static str,
    pub high: &'static str,
    /// Why the algorithm needs it (cited).
    pub why: &'static str,
}

/// A parameter value as [`check_params`] sees it, whatever format it came in.
pub enum ParamValue<'a> {
    Number(f64),
    Table(Box<dyn ParamTable + 'a>),
    /// A string, a boolean, a list: the parameter's type checks it.
    Other,
}

/// A table of parameter values (a TOML or JSON table).
pub trait ParamTable {
    fn get(&self, key: &str) -> Option<ParamValue<'_>>;
}

/// A parameter value outside its range: `path` is dotted below `cc_params`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub path: String,
    pub message: String,
}

/// Check every numeric value of a parameter table against the ranges of `info`, then the
/// algorithm's cross-parameter constraints (a parameter left out counts with its default).
/// Unknown keys and wrong types are the deserialiser's business, not checked here.
pub fn check_params(info: &AlgorithmInfo, table: &dyn ParamTable) -> Result<(), ParamError> {
    check_table(info.params, table, "")?;
    for o in info.constraints {
        let value = |name: &str| -> Option<f64> {
            match table.get(name) {
                Some(ParamValue::Number(v)) => Some(v),
                Some(_) => None,
                None => info.params.iter().find(|p| p.name == name).and_then(|p| p.default.parse().ok()),
            }
        };
        if let (Some(low), Some(high)) = (value(o.low), value(o.high)) {
            if low > high {
                // Blame the one the user gave (the other may be a default).
                let (path, v) = if table.get(o.high).is_some() { (o.high, high) } else { (o.low, low) };
                return Err(ParamError {
                    path: path.to_string(),
                    message: format!(
                        "is {}, but {} = {} and {} = {}; allowed: {} <= {} ({})",
                        fmt_num(v), o.low, fmt_num(low), o.high, fmt_num(high), o.low, o.high, o.why
                    ),
                });
            }
        }
    }
    Ok(())
}

fn check_table(params: &[ParamInfo], table: &dyn ParamTable, prefix: &str) -> Result<(), ParamError> {
    for p in params {
        let path = || format!("{prefix}{}", p.name);
        match (p.range, table.get(p.name)) {
            (Range::Num { .. }, Some(ParamValue::Number(v))) => {
                if let Some(message) = p.range.refuse_named(v, p.name) {
                    return Err(ParamError { path: path(), message: format!("{message} ({})", p.unit) });
                }
            }
            (Range::Table(nested), Some(ParamValue::Table(t))) => check_table(nested, t.as_ref(), &format!("{}.", path()))?,
            _ => {}
        }
    }
    Ok(())
}

/// Documentation of one algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub reference: &'static str,
    pub params: &'static [ParamInfo],
    /// Constraints between parameters, checked with the ranges.
    pub constraints: &'static [Order],
    /// A timeout sets cwnd to one segment (false where the paper says otherwise; the
    /// contract suite checks it).
    pub timeout_collapses_window: bool,
}

/// The name was not in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgorithm(pub String);

impl std::fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut all = names();
        all.extend(user::user_names());
        let close: Vec<&str> = all.iter().copied().filter(|n| edit_distance(&self.0.to_lowercase(), n) <= 2.max(n.len() / 4)).collect();
        let hint = if close.is_empty() { String::new() } else { format!(" (did you mean {}?)", close.join(" or ")) };
        write!(f, "unknown algorithm `{}`{hint}; allowed: {}", self.0, all.join(", "))
    }
}

/// Levenshtein distance, for "did you mean" (no string-distance crate is among the
/// dependencies, and this is its whole use).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// For algorithms without a receiver-side half.
fn no_receiver<P>(_: &P) -> Option<Box<dyn ReceiverControl>> {
    None
}

/// Declares the registry: one line per algorithm with its config variant, parameter
/// type, documentation, and constructors of its sender and (optional) receiver halves.
macro_rules! registry {
    ($( $variant:ident ( $params:ty ) => $info:expr, $build:expr, $receiver:expr; )*) => {
        /// A fully parameterised algorithm choice.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $( $variant($params), )*
            /// An algorithm registered at run time ([`crate::user`]).
            User(UserCc),
        }

        const CATALOG: &[AlgorithmInfo] = &[ $( $info, )* ];

        impl CcConfig {
            /// Deserialise the parameter table of the named algorithm. An unknown name is
            /// reported as a custom error naming the allowed values.
            pub fn from_name<'de, D: Deserializer<'de>>(name: &str, params: D) -> Result<CcConfig, D::Error> {
                $( if name == $info.name {
                    return Ok(CcConfig::$variant(<$params>::deserialize(params)?));
                } )*
                if let Some(alg) = user::user_algorithm(name) {
                    let params = serde_json::Value::deserialize(params)?;
                    return Ok(CcConfig::User(UserCc { alg, params }));
                }
                Err(D::Error::custom(UnknownAlgorithm(name.to_string())))
            }

            pub fn name(&self) -> &'static str {
                match self { $( CcConfig::$variant(_) => $info.name, )* CcConfig::User(u) => u.name() }
            }

            /// Build the sender-side state machine.
            pub fn build(&self) -> Box<dyn CongestionControl> {
                self.build_for(0)
            }

            /// Build the sender-side state machine of flow number `flow` (a user algorithm
            /// names the flow in its errors).
            pub fn build_for(&self, flow: u32) -> Box<dyn CongestionControl> {
                match self { $( CcConfig::$variant(p) => ($build)(p), )* CcConfig::User(u) => u.alg.build(&u.params, flow) }
            }

            /// Build the receiver-side half, for algorithms that have one.
            pub fn build_receiver(&self) -> Option<Box<dyn ReceiverControl>> {
                match self { $( CcConfig::$variant(p) => ($receiver)(p), )* CcConfig::User(_) => None }
            }
        }
    };
}

registry! {
    Reno(RenoParams) => reno::RENO_INFO, |p: &RenoParams| Reno::boxed(*p, RecoveryStyle::Reno), no_receiver;
    NewReno(RenoParams) => reno::NEWRENO_INFO, |p: &RenoParams| Reno::boxed(*p, RecoveryStyle::NewReno), no_receiver;
    Vegas(vegas::VegasParams) => vegas::VEGAS_INFO, vegas::build, no_receiver;
    Veno(veno::VenoParams) => veno::VENO_INFO, veno::build, no_receiver;
    Cubic(cubic::CubicParams) => cubic::CUBIC_INFO, cubic::build, no_receiver;
    Taichung(taichung::TaichungParams) => taichung::TAICHUNG_INFO, taichung::build, no_receiver;
    Acc(acc::AccParams) => acc::ACC_INFO, acc::build, no_receiver;
    Clap(acc::AccParams) => acc::CLAP_INFO, acc::build_clap, no_receiver;
    Jersey(jersey::JerseyParams) => jersey::JERSEY_INFO, jersey::build, no_receiver;
    NewJersey(jersey::JerseyParams) => jersey::NEWJERSEY_INFO, jersey::build_new_jersey, no_receiver;
    NjPlus(njplus::NjPlusParams) => njplus::NJPLUS_INFO, njplus::build, no_receiver;
    Jtcp(jtcp::JtcpParams) => jtcp::JTCP_INFO, jtcp::build, no_receiver;
    Ewr(ewr::EwrParams) => ewr::EWR_INFO, ewr::build, ewr::build_receiver;
    Bbr(bbr::BbrParams) => bbr::BBR_INFO, bbr::build, no_receiver;
    Bbr3(bbr3::Bbr3Params) => bbr3::BBR3_INFO, bbr3::build, no_receiver;
    Westwood(westwood::WestwoodParams) => westwood::WESTWOOD_INFO, westwood::build, no_receiver;
    WestwoodPlus(westwood::WestwoodPlusParams) => westwood::WESTWOODPLUS_INFO, westwood::build_plus, no_receiver;
    Prairie(prairie::PrairieParams) => prairie::PRAIRIE_INFO, prairie::build, no_receiver;
    Dynamic(dynamic::DynamicParams) => dynamic::DYNAMIC_INFO, dynamic::build, no_receiver;
    C2tcp(c2tcp::C2tcpParams) => c2tcp::C2TCP_INFO, c2tcp::build, no_receiver;
    Copa(copa::CopaParams) => copa::COPA_INFO, copa::build, no_receiver;
    Abc(abc::AbcParams) => abc::ABC_INFO, abc::build, no_receiver;
}

impl CcConfig {
    /// The algorithm needs ECN with a per-packet echo (Linux `TCP_CONG_NEEDS_ECN`): the
    /// engine turns both on for its flows.
    pub fn needs_ecn(&self) -> bool {
        matches!(self, CcConfig::Abc(_))
    }
}

/// Every registered algorithm with its documentation, in display order.
pub fn catalog() -> &'static [AlgorithmInfo] {
    CATALOG
}

/// The built-in names ([`user::user_names`] has the algorithms registered at run time).
pub fn names() -> Vec<&'static str> {
    CATALOG.iter().map(|a| a.name).collect()
}

impl CcConfig {
    /// Default parameters for a named algorithm.
    pub fn default_for(name: &str) -> Result<CcConfig, UnknownAlgorithm> {
        let empty: std::collections::BTreeMap<String, bool> = Default::default();
        let de: serde::de::value::MapDeserializer<_, serde::de::value::Error> = empty.into_deserializer();
        Self::from_name(name, de).map_err(|_| UnknownAlgorithm(name.to_string()))
    }

    /// Bytes of state the algorithm allocates beyond its fixed size (a sample history), for
    /// the resource estimate of a run.
    pub fn extra_state_bytes(&self) -> u64 {
        match self {
            CcConfig::Jtcp(p) => jtcp::history_bytes(p),
            _ => 0,
        }
    }

    pub fn info(&self) -> &'static AlgorithmInfo {
        if let CcConfig::User(u) = self {
            return u.alg.info();
        }
        let name = self.name();
        CATALOG.iter().find(|a| a.name == name).expect("every variant is in the catalog")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_entry_builds_with_defaults() {
        for info in catalog() {
            let cfg = CcConfig::default_for(info.name).unwrap();
            assert_eq!(cfg.name(), info.name);
            assert_eq!(cfg.build().name(), info.name);
        }
    }

    #[test]
    fn documented_defaults_are_the_real_defaults() {
        // Deserialising the catalog's documented defaults must give the Default impl.
        for info in catalog() {
            let mut table = serde_json::Map::new();
            for p in info.params {
                let v: serde_json::Value = serde_json::from_str(p.default)
                    .unwrap_or(serde_json::Value::String(p.default.to_string()));
                table.insert(p.name.to_string(), v);
            }
            let documented = CcConfig::from_name(info.name, serde_json::Value::Object(table)).unwrap();
            assert_eq!(documented, CcConfig::default_for(info.name).unwrap(), "{}", info.name);
        }
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let v = serde_json::json!({"byte_countng": true});
        let err = CcConfig::from_name("reno", v).unwrap_err().to_string();
        assert!(err.contains("byte_countng"), "{err}");
    }

    #[test]
    fn unknown_algorithm_names_the_allowed_ones() {
        let err = CcConfig::default_for("renoo").unwrap_err().to_string();
        assert!(err.contains("reno, newreno"), "{err}");
    }
}
