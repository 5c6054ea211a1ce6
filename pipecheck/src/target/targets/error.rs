//! [`TargetError`]: misuse of the target API, as a typed value.

use std::fmt;

use pipecheck_sync::InvariantId;

/// A target declared or looked up wrongly.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TargetError {
    /// No target has this name.
    UnknownTarget {
        /// The name asked for.
        name: String,
        /// The targets there are.
        known: Vec<&'static str>,
    },
    /// The target has no scenario of this name.
    UnknownScenario {
        /// The target.
        target: &'static str,
        /// The name asked for.
        name: String,
        /// Its scenarios.
        known: Vec<&'static str>,
    },
    /// The target declares no fault of this name.
    UnknownFault {
        /// The target.
        target: &'static str,
        /// The name asked for.
        name: String,
        /// Its faults.
        known: Vec<&'static str>,
    },
    /// Two scenarios, or two faults, share a name.
    Duplicate {
        /// The target.
        target: &'static str,
        /// `scenario` or `fault`.
        what: &'static str,
        /// The name.
        name: &'static str,
    },
    /// A scenario claims to catch a fault the target does not declare.
    Undeclared {
        /// The target.
        target: &'static str,
        /// The scenario.
        scenario: &'static str,
        /// The fault.
        fault: &'static str,
    },
    /// A declared fault is claimed by no scenario: no engine would ever switch it on.
    Unclaimed {
        /// The target.
        target: &'static str,
        /// The fault.
        fault: &'static str,
    },
    /// A fault breaks an invariant the target does not check.
    UnknownInvariant {
        /// The target.
        target: &'static str,
        /// The fault.
        fault: &'static str,
        /// The invariant it names.
        invariant: InvariantId,
    },
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::UnknownTarget { name, known } => {
                write!(f, "unknown target `{name}` (known: {})", known.join(", "))
            }
            TargetError::UnknownScenario { target, name, known } => {
                write!(f, "unknown scenario `{name}` of target `{target}` (known: {})", known.join(", "))
            }
            TargetError::UnknownFault { target, name, known } => {
                write!(f, "unknown fault `{name}` of target `{target}` (known: {})", known.join(", "))
            }
            TargetError::Duplicate { target, what, name } => {
                write!(f, "target `{target}` declares the {what} `{name}` twice")
            }
            TargetError::Undeclared { target, scenario, fault } => write!(
                f,
                "planted bug `{fault}` of target `{target}` claims to be caught in scenario `{scenario}`, \
                 which the target does not have"
            ),
            TargetError::Unclaimed { target, fault } => {
                write!(f, "fault `{fault}` of target `{target}` is claimed by no scenario's `catches`")
            }
            TargetError::UnknownInvariant { target, fault, invariant } => write!(
                f,
                "fault `{fault}` of target `{target}` breaks `{invariant}`, which none of its invariants checks"
            ),
        }
    }
}

impl std::error::Error for TargetError {}
