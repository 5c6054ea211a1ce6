//! [`RunLog`]: what a run logged, as rows for people, whatever its event type: every
//! [`EventMonitor`](crate::check::EventMonitor) is one, so the traces tool's per-task table and a loom failure's log tail read any
//! target's run the same way.

/// One logged event, described.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Position in the log.
    pub step: usize,
    /// Who logged it (a task name the scenario gave, or one the event names), when known.
    pub role: Option<String>,
    /// What happened, in a few words.
    pub text: String,
}

/// A run's log, readable while the run goes on (a scheduler reads its length at every
/// decision) and after it failed.
pub trait RunLog: Send + Sync {
    /// Events logged so far.
    fn len(&self) -> usize;

    /// Whether nothing was logged.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The log, described.
    fn rows(&self) -> Vec<Row>;
}
