//! Algorithms defined at run time, outside this crate (a class a user writes in Python):
//! a process-wide table of names the registry consults after its own entries.
//!
//! A user algorithm is registered once per process ([`register_user`]); a scenario then
//! names it like a built-in (`cc = "mycc"`) and [`crate::CcConfig::from_name`] returns
//! [`crate::CcConfig::User`]. The table holds builders, never state of a run: each flow gets
//! its own instance from [`UserAlgorithm::build`], so runs stay independent and, with a
//! deterministic user algorithm, reproducible.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use crate::api::CongestionControl;
use crate::registry::{AlgorithmInfo, ParamError};

/// The builder of one user algorithm.
pub trait UserAlgorithm: Send + Sync {
    /// Its documentation; `info().name` is the name scenarios use.
    fn info(&self) -> &'static AlgorithmInfo;
    /// Check a parameter table (`cc_params`, as JSON) before any run: `Err` has the key's
    /// path below `cc_params` (empty for the table as a whole), what is wrong and what is
    /// allowed. The scenario's resolution calls it ([`crate::CcConfig::from_name`] does
    /// not), after refusing numbers JSON cannot hold (inf, NaN).
    fn check_params(&self, params: &serde_json::Value) -> Result<(), ParamError>;
    /// A new instance for flow number `flow` (its index among the scenario's flows).
    fn build(&self, params: &serde_json::Value, flow: u32) -> Box<dyn CongestionControl>;
}

type Table = BTreeMap<&'static str, Arc<dyn UserAlgorithm>>;

static USER: RwLock<Table> = RwLock::new(BTreeMap::new());

fn read() -> std::sync::RwLockReadGuard<'static, Table> {
    // A panic while holding the lock cannot leave the map half-updated (one insert or
    // remove), so a poisoned lock is still consistent.
    USER.read().unwrap_or_else(|e| e.into_inner())
}

/// Register (or replace) a user algorithm. Refused: a built-in algorithm's name.
pub fn register_user(alg: Arc<dyn UserAlgorithm>) -> Result<(), String> {
    let name = alg.info().name;
    if crate::registry::names().contains(&name) {
        return Err(format!("`{name}` is a built-in algorithm; choose another name"));
    }
    USER.write().unwrap_or_else(|e| e.into_inner()).insert(name, alg);
    Ok(())
}

/// Remove a user algorithm; false if none had that name.
pub fn unregister_user(name: &str) -> bool {
    USER.write().unwrap_or_else(|e| e.into_inner()).remove(name).is_some()
}

/// The user algorithm registered under `name`.
pub fn user_algorithm(name: &str) -> Option<Arc<dyn UserAlgorithm>> {
    read().get(name).cloned()
}

/// The names of the registered user algorithms, sorted.
pub fn user_names() -> Vec<&'static str> {
    read().keys().copied().collect()
}

/// A user algorithm with its parameters, as a scenario's flow holds it.
#[derive(Clone)]
pub struct UserCc {
    pub alg: Arc<dyn UserAlgorithm>,
    /// `cc_params` as given (a JSON object; empty when none).
    pub params: serde_json::Value,
}

impl UserCc {
    pub fn name(&self) -> &'static str {
        self.alg.info().name
    }
}

impl PartialEq for UserCc {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.alg, &other.alg) && self.params == other.params
    }
}

impl std::fmt::Debug for UserCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserCc({}, {})", self.name(), self.params)
    }
}
