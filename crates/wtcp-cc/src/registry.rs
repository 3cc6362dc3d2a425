//! The algorithm registry: names, typed parameters, documentation, and construction.
//!
//! A scenario names an algorithm (`cc = "newreno"`) and may give a parameter table; the
//! table is deserialised into that algorithm's parameter struct (unknown keys rejected).
//! Adding an algorithm is one line in the `registry!` invocation below.

use serde::de::{Deserializer, Error as _, IntoDeserializer};
use serde::Deserialize;

use crate::api::{CongestionControl, ReceiverControl, RecoveryStyle};
use crate::reno::{self, Reno, RenoParams};
use crate::{acc, bbr, cubic, dynamic, ewr, jersey, jtcp, njplus, prairie, taichung, vegas, veno, westwood};

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
    /// A timeout sets cwnd to one segment (false where the paper says otherwise; the
    /// contract suite checks it).
    pub timeout_collapses_window: bool,
}

/// The name was not in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgorithm(pub String);

impl std::fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown algorithm `{}`; allowed: {}", self.0, names().join(", "))
    }
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
        }

        const CATALOG: &[AlgorithmInfo] = &[ $( $info, )* ];

        impl CcConfig {
            /// Deserialise the parameter table of the named algorithm. An unknown name is
            /// reported as a custom error naming the allowed values.
            pub fn from_name<'de, D: Deserializer<'de>>(name: &str, params: D) -> Result<CcConfig, D::Error> {
                $( if name == $info.name {
                    return Ok(CcConfig::$variant(<$params>::deserialize(params)?));
                } )*
                Err(D::Error::custom(UnknownAlgorithm(name.to_string())))
            }

            pub fn name(&self) -> &'static str {
                match self { $( CcConfig::$variant(_) => $info.name, )* }
            }

            /// Build the sender-side state machine.
            pub fn build(&self) -> Box<dyn CongestionControl> {
                match self { $( CcConfig::$variant(p) => ($build)(p), )* }
            }

            /// Build the receiver-side half, for algorithms that have one.
            pub fn build_receiver(&self) -> Option<Box<dyn ReceiverControl>> {
                match self { $( CcConfig::$variant(p) => ($receiver)(p), )* }
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
    Westwood(westwood::WestwoodParams) => westwood::WESTWOOD_INFO, westwood::build, no_receiver;
    WestwoodPlus(westwood::WestwoodPlusParams) => westwood::WESTWOODPLUS_INFO, westwood::build_plus, no_receiver;
    Prairie(prairie::PrairieParams) => prairie::PRAIRIE_INFO, prairie::build, no_receiver;
    Dynamic(dynamic::DynamicParams) => dynamic::DYNAMIC_INFO, dynamic::build, no_receiver;
}

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

    pub fn info(&self) -> &'static AlgorithmInfo {
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
