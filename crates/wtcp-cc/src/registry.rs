//! The algorithm registry: names, typed parameters, documentation, and construction.
//!
//! A scenario names an algorithm (`cc = "newreno"`) and may give a parameter table; the
//! table is deserialised into that algorithm's parameter struct (unknown keys rejected).

use serde::de::{Deserializer, Error as _, IntoDeserializer};
use serde::Deserialize;

use crate::api::{CongestionControl, ReceiverControl, RecoveryStyle};
use crate::reno::{Reno, RenoParams};

/// A fully parameterised algorithm choice.
#[derive(Clone, Debug, PartialEq)]
pub enum CcConfig {
    Reno(RenoParams),
    NewReno(RenoParams),
}

/// Documentation of one parameter, for `wtcp algorithms`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub name: &'static str,
    pub unit: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
}

/// Documentation of one algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub reference: &'static str,
    pub params: &'static [ParamInfo],
}

/// The name was not in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgorithm(pub String);

impl std::fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown algorithm `{}`; allowed: {}", self.0, names().join(", "))
    }
}

const RENO_PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "byte_counting",
        unit: "bool",
        default: "false",
        doc: "RFC 3465 appropriate byte counting; off = RFC 5681 per-ACK increase (ns-3)",
    },
    ParamInfo {
        name: "abc_limit",
        unit: "segments",
        default: "2",
        doc: "byte-counting limit L per ACK in slow start (RFC 3465 §2.2)",
    },
    ParamInfo {
        name: "halve",
        unit: "flight_size|cwnd|pipe",
        default: "flight_size",
        doc: "quantity halved on loss: FlightSize (RFC 5681 eq. 4), cwnd (ns-2, Linux) or the RFC 6675 pipe (ns-3)",
    },
];

const CATALOG: &[AlgorithmInfo] = &[
    AlgorithmInfo {
        name: "reno",
        summary: "Slow start, congestion avoidance, fast retransmit and fast recovery; recovery ends on the first new ACK.",
        reference: "RFC 5681 (Allman, Paxson, Blanton, 2009)",
        params: RENO_PARAMS,
    },
    AlgorithmInfo {
        name: "newreno",
        summary: "Reno with partial-ACK handling: stays in fast recovery until all data outstanding at its start is acknowledged.",
        reference: "RFC 6582 (Henderson, Floyd, Gurtov, Nishida, 2012)",
        params: RENO_PARAMS,
    },
];

/// Every registered algorithm with its documentation, in display order.
pub fn catalog() -> &'static [AlgorithmInfo] {
    CATALOG
}

/// The registered names.
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

    /// Deserialise the parameter table of the named algorithm. An unknown name is reported
    /// as a custom error naming the allowed values.
    pub fn from_name<'de, D: Deserializer<'de>>(name: &str, params: D) -> Result<CcConfig, D::Error> {
        Ok(match name {
            "reno" => CcConfig::Reno(RenoParams::deserialize(params)?),
            "newreno" => CcConfig::NewReno(RenoParams::deserialize(params)?),
            other => return Err(D::Error::custom(UnknownAlgorithm(other.to_string()))),
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Reno(_) => "reno",
            CcConfig::NewReno(_) => "newreno",
        }
    }

    /// Build the sender-side state machine.
    pub fn build(&self) -> Box<dyn CongestionControl> {
        match self {
            CcConfig::Reno(p) => Box::new(Reno::new(*p, RecoveryStyle::Reno)),
            CcConfig::NewReno(p) => Box::new(Reno::new(*p, RecoveryStyle::NewReno)),
        }
    }

    /// Build the receiver-side half, for algorithms that have one.
    pub fn build_receiver(&self) -> Option<Box<dyn ReceiverControl>> {
        match self {
            CcConfig::Reno(_) | CcConfig::NewReno(_) => None,
        }
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
