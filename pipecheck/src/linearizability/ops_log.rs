//! [`OpsLog`]: a generated run's operations as a [`RunLog`], so that the traces tool's
//! per-task table and a loom failure's log tail show which thread invoked what and
//! what it returned.
//!
//! The rows sit behind a `std` mutex, outside loom's and shuttle's view: logging adds
//! no scheduling point and no happens-before edge to the run it describes.

use std::sync::{Mutex, PoisonError};

use crate::check::{Row, RunLog};

/// The operations of one run, in the order they were logged.
///
/// # Examples
///
/// ```
/// use pipecheck::RunLog;
/// use pipecheck::linearizability::OpsLog;
///
/// let log = OpsLog::new();
/// log.note(Some(0), "Send(1) …".to_owned());
/// log.note(Some(0), "Send(1) -> Sent".to_owned());
/// assert_eq!(log.len(), 2);
/// assert_eq!(log.rows()[1].role.as_deref(), Some("thread 0"));
/// ```
#[derive(Debug, Default)]
pub struct OpsLog {
    rows: Mutex<Vec<Row>>,
}

impl OpsLog {
    /// An empty log.
    pub fn new() -> OpsLog {
        OpsLog::default()
    }

    /// Logs `text`, by generated thread `thread` (or by the run itself when `None`).
    pub fn note(&self, thread: Option<usize>, text: String) {
        let mut rows = self.rows.lock().unwrap_or_else(PoisonError::into_inner);
        let step = rows.len();
        rows.push(Row { step, role: thread.map(|t| format!("thread {t}")), text });
    }
}

impl RunLog for OpsLog {
    fn len(&self) -> usize {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    fn rows(&self) -> Vec<Row> {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
