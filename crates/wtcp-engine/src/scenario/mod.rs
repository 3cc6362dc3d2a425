//! Scenario input: parse (TOML, or JSON from Python), apply `--set` overrides, check,
//! and resolve into the typed, index-based [`Scenario`] the engine runs.

pub mod budget;
pub mod conditions;
mod overrides;
pub mod profile;
mod resolve;
pub mod schema;
pub mod traces;

pub use overrides::{apply_override, parse_value};
pub use resolve::*;

/// A user mistake in a scenario: where, what is wrong, and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path of the offending field (`links[1].ab.loss.rate`); empty for the whole file.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
