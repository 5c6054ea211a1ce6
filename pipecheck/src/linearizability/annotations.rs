//! What the picture shows besides the operations: [`Annotation`]s on the time axis and
//! per-operation metadata (porcupine's `Annotation` and `Operation.Metadata`), kept
//! with the [`History`] and ignored by the check.

use super::history::{History, OpId};

/// A note on the picture's time axis, between two stamps of the history: in a
/// thread's row of notes, or in a row of its own named by a tag (porcupine's
/// `Annotation`).
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{Annotation, History};
///
/// let mut history: History<&str, u32> = History::new();
/// history.complete(0, "write", 0, 0, 10);
/// history.annotate(Annotation::tagged("network", 2, 8, "partition").with_details("nodes 1-2 cut off"));
/// history.annotate(Annotation::on_thread(0, 5, 5, "leader change"));
/// assert_eq!(history.annotations().len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Annotation {
    /// The thread whose row of notes holds it; `None` for a tagged row.
    pub thread: Option<usize>,
    /// The name of its row when it belongs to no thread.
    pub tag: String,
    /// Its first stamp.
    pub start: u64,
    /// Its last stamp (equal to `start` for an instant).
    pub end: u64,
    /// The text drawn on it.
    pub description: String,
    /// More text, shown on hover.
    pub details: String,
    /// Its background colour (any CSS colour); `None` for the default.
    pub background: Option<String>,
}

impl Annotation {
    /// A note in `thread`'s row of notes, from `start` to `end`.
    pub fn on_thread(thread: usize, start: u64, end: u64, description: impl Into<String>) -> Annotation {
        Annotation { thread: Some(thread), ..Annotation::tagged("", start, end, description) }
    }

    /// A note in the row named `tag`, from `start` to `end`.
    pub fn tagged(
        tag: impl Into<String>,
        start: u64,
        end: u64,
        description: impl Into<String>,
    ) -> Annotation {
        Annotation {
            thread: None,
            tag: tag.into(),
            start,
            end,
            description: description.into(),
            details: String::new(),
            background: None,
        }
    }

    /// This note with `details` shown on hover.
    pub fn with_details(self, details: impl Into<String>) -> Annotation {
        Annotation { details: details.into(), ..self }
    }

    /// This note on a `background` colour.
    pub fn with_background(self, background: impl Into<String>) -> Annotation {
        Annotation { background: Some(background.into()), ..self }
    }

    /// The name of its row.
    pub(super) fn row(&self) -> String {
        match self.thread {
            Some(thread) => format!("thread {thread} notes"),
            None => self.tag.clone(),
        }
    }
}

/// A history's annotations and operation metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Notes {
    annotations: Vec<Annotation>,
    /// Per operation (as far as the last one with metadata).
    metadata: Vec<Option<String>>,
}

impl<I, O> History<I, O> {
    /// Adds a note to the picture (the check ignores it).
    pub fn annotate(&mut self, annotation: Annotation) {
        self.notes.annotations.push(annotation);
    }

    /// The notes added by [`History::annotate`].
    pub fn annotations(&self) -> &[Annotation] {
        &self.notes.annotations
    }

    /// Attaches `metadata` to operation `op` (porcupine's `Operation.Metadata`): the
    /// picture shows it with the operation; the check ignores it. A later call for the
    /// same operation replaces it.
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck::linearizability::History;
    ///
    /// let mut history: History<&str, u32> = History::new();
    /// let write = history.complete(0, "write", 0, 0, 10);
    /// history.set_metadata(write, "request 17 on node 2");
    /// assert_eq!(history.metadata(write), Some("request 17 on node 2"));
    /// ```
    pub fn set_metadata(&mut self, op: OpId, metadata: impl Into<String>) {
        let slots = &mut self.notes.metadata;
        if slots.len() <= op.0 {
            slots.resize(op.0 + 1, None);
        }
        slots[op.0] = Some(metadata.into());
    }

    /// The metadata of operation `op`, if any.
    pub fn metadata(&self, op: OpId) -> Option<&str> {
        self.notes.metadata.get(op.0)?.as_deref()
    }
}
