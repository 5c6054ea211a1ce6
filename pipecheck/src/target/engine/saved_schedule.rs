//! A failing [`Shuttle`](super::shuttle::Shuttle) check saves its schedule, and the
//! same test replays it: how a user's own shuttle test keeps its failures.
//!
//! Every check records the decisions of the execution under way ([`Taping`]). When
//! one fails, its schedule is written in shuttle's own encoding (what `shuttle::replay`
//! and `shuttle::replay_from_file` read) to
//! `<target>/pipecheck/shuttle/<test>.check<n>.schedule`, where `<n>` counts the
//! checks the test ran, and the engine prints the one command that replays it:
//! the same test with `PIPECHECK_SHUTTLE_REPLAY=<file>`. With that variable set, the
//! check the file names runs that one schedule instead of exploring; the test's other
//! checks explore as usual.

use std::cell::Cell;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use shuttle::scheduler::{Schedule, Scheduler, Task, TaskId};

use crate::target::TestInvocation;

/// The environment variable naming a schedule file to replay.
pub const REPLAY_VAR: &str = "PIPECHECK_SHUTTLE_REPLAY";

/// The schedule of the execution under way, shared with the scheduler shuttle owns.
pub(crate) type Tape = Arc<Mutex<Option<Schedule>>>;

/// A scheduler that writes down what the one it wraps decides, on `tape`.
pub(crate) struct Taping<S> {
    inner: S,
    tape: Tape,
}

impl<S: Scheduler> Taping<S> {
    /// Wraps `inner`, recording on `tape`.
    pub(crate) fn new(inner: S, tape: Tape) -> Taping<S> {
        Taping { inner, tape }
    }

    fn record(&self, step: impl FnOnce(&mut Schedule)) {
        if let Some(schedule) = self.tape.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            step(schedule);
        }
    }
}

impl<S: Scheduler> Scheduler for Taping<S> {
    fn new_execution(&mut self) -> Option<Schedule> {
        let schedule = self.inner.new_execution();
        // A fresh schedule holds the execution's seed and no step yet.
        *self.tape.lock().unwrap_or_else(PoisonError::into_inner) = schedule.clone();
        schedule
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        let chosen = self.inner.next_task(runnable, current, is_yielding);
        if let Some(task) = chosen {
            self.record(|s| s.push_task(task));
        }
        chosen
    }

    fn next_u64(&mut self) -> u64 {
        self.record(Schedule::push_random);
        self.inner.next_u64()
    }
}

thread_local! {
    /// Shuttle checks the current test thread has run so far.
    static CHECKS: Cell<usize> = const { Cell::new(0) };
}

/// One check of a test: where its schedule is saved, and whether it is the one to replay.
#[derive(Clone, Debug)]
pub(crate) struct CheckSite {
    invocation: TestInvocation,
    number: usize,
}

impl CheckSite {
    /// The next check of the test on this thread.
    pub(crate) fn next() -> CheckSite {
        let number = CHECKS.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        CheckSite { invocation: TestInvocation::current(), number }
    }

    /// The file this check's failing schedule goes to.
    pub(crate) fn path(&self) -> PathBuf {
        let name: String = self
            .invocation
            .test
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
            .collect();
        directory().join(format!("{name}.check{}.schedule", self.number))
    }

    /// The encoded schedule to replay, when `PIPECHECK_SHUTTLE_REPLAY` names this
    /// check's file.
    ///
    /// # Panics
    ///
    /// When the named file cannot be read (the message names it).
    pub(crate) fn replay(&self) -> Option<String> {
        let wanted = PathBuf::from(std::env::var_os(REPLAY_VAR)?);
        if wanted.file_name() != self.path().file_name() {
            return None;
        }
        let encoded = std::fs::read_to_string(&wanted)
            .unwrap_or_else(|e| panic!("{REPLAY_VAR}={}: cannot read it: {e}", wanted.display()));
        Some(encoded.trim().to_owned())
    }

    /// Saves `schedule` and returns the message that says where and how to replay it.
    pub(crate) fn save(&self, schedule: &Schedule) -> String {
        let path = self.path();
        let encoded = shuttle_engine::scheduler::serialization::serialize_schedule(schedule);
        let written = std::fs::create_dir_all(directory()).and_then(|()| std::fs::write(&path, &encoded));
        match written {
            Ok(()) => format!(
                "failing schedule saved to {}\nreplay it (this check runs that one schedule):\n  {REPLAY_VAR}={} {}",
                path.display(),
                path.display(),
                self.invocation.command("shuttle"),
            ),
            Err(e) => format!(
                "the failing schedule could not be saved to {} ({e}); pass this to `shuttle::replay`:\n  {encoded}",
                path.display()
            ),
        }
    }
}

/// `<target>/pipecheck/shuttle` ([`target_dir`](crate::trace::location::target_dir)).
fn directory() -> PathBuf {
    crate::trace::location::target_dir().join("pipecheck").join("shuttle")
}
