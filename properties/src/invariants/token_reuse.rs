//! **token-reuse**: a reusable completion source accepts one result per operation, only
//! with that operation's token, and hands it out once.
//!
//! The source reports each reset, accepted result and handed-out result under its
//! lock, so the log's current version is the real one at each step.

use std::collections::HashMap;

use pipecheck::InvariantId;
use pipecheck_pipe::{PrimitiveEvent, PrimitiveId};

use pipecheck::Invariant;
use crate::Observation;

/// The current operation of one source.
#[derive(Debug, Default)]
struct Operation {
    version: u64,
    has_result: bool,
    taken: bool,
}

/// Tracks each completion source's current operation.
#[derive(Debug, Default)]
pub struct TokenReuse {
    sources: HashMap<PrimitiveId, Operation>,
}

impl Invariant<Observation> for TokenReuse {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::TOKEN_REUSE
    }

    fn statement(&self) -> &'static str {
        "a reusable completion source rejects stale tokens and double results"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Primitive(event) = observation else { return Ok(()) };
        match *event {
            PrimitiveEvent::CompletionReset { source, version } => {
                self.sources.insert(source, Operation { version, has_result: false, taken: false });
            }
            PrimitiveEvent::CompletionResultSet { source, token } => {
                let op = self.sources.entry(source).or_default();
                if token != op.version {
                    return Err(format!(
                        "completion source {source} accepted a result with the token of operation {token} \
                         during operation {}",
                        op.version
                    ));
                }
                if std::mem::replace(&mut op.has_result, true) {
                    return Err(format!(
                        "completion source {source} accepted a second result for operation {token}"
                    ));
                }
            }
            PrimitiveEvent::CompletionResultTaken { source, version } => {
                let op = self.sources.entry(source).or_default();
                if version != op.version || !op.has_result {
                    return Err(format!(
                        "completion source {source} handed out a result for operation {version}, which has none \
                         (current operation {})",
                        op.version
                    ));
                }
                if std::mem::replace(&mut op.taken, true) {
                    return Err(format!(
                        "completion source {source} handed out operation {version}'s result twice"
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
