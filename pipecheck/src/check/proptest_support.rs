//! proptest as pipecheck runs it: failures printed with their violation, and failure
//! seeds saved under `target/`, never into the source tree.
//!
//! proptest prints a failing case's panic only when its payload is a string
//! (`Test failed: <unknown panic value>` otherwise); checkers panic with typed payloads
//! ([`Violation`](crate::check::Violation), [`ModelMismatch`](crate::check::ModelMismatch)).
//! [`reported`] and [`Reported`] turn them into their text at proptest's edge only:
//! engines and hunts keep the typed payloads.
//!
//! proptest's file persistence reads and writes one file; [`Regressions`] reads the
//! committed seeds (`proptest-regressions/<name>.txt`, replayed first) and writes new
//! ones to `target/pipecheck/proptest-regressions/<name>.txt` (proptest prints each new
//! seed line, so a log from another machine replays too).

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};

use proptest::test_runner::{FailurePersistence, FileFailurePersistence, PersistedSeed};
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};

use crate::check::verdict::panic_message;

/// Runs `body`; a panic goes on as its message (a `String` payload), which proptest
/// prints.
///
/// # Examples
///
/// ```
/// # std::panic::set_hook(Box::new(|_| {}));
/// use pipecheck::{InvariantId, Violation};
/// let payload = std::panic::catch_unwind(|| {
///     pipecheck::reported(|| std::panic::panic_any(Violation::new(InvariantId::new("fifo-pool"), "out of order")))
/// })
/// .unwrap_err();
/// assert!(payload.downcast_ref::<String>().unwrap().contains("fifo-pool"));
/// ```
pub fn reported<T>(body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| resume_unwind(as_text(payload)))
}

fn as_text(payload: Box<dyn Any + Send>) -> Box<dyn Any + Send> {
    if payload.is::<String>() || payload.is::<&'static str>() {
        payload
    } else {
        Box::new(panic_message(payload.as_ref()))
    }
}

/// A [`StateMachineTest`] whose failures proptest prints: `T`'s steps through
/// [`reported`] (`sequential 1..48 => Reported<PipeTest>` in `prop_state_machine!`).
#[derive(Clone, Copy, Debug)]
pub struct Reported<T>(std::marker::PhantomData<T>);

impl<T: StateMachineTest> StateMachineTest for Reported<T> {
    type SystemUnderTest = T::SystemUnderTest;
    type Reference = T::Reference;

    fn init_test(model: &<T::Reference as ReferenceStateMachine>::State) -> Self::SystemUnderTest {
        reported(|| T::init_test(model))
    }

    fn apply(
        sut: Self::SystemUnderTest,
        model: &<T::Reference as ReferenceStateMachine>::State,
        transition: <T::Reference as ReferenceStateMachine>::Transition,
    ) -> Self::SystemUnderTest {
        reported(|| T::apply(sut, model, transition))
    }

    fn check_invariants(sut: &Self::SystemUnderTest, model: &<T::Reference as ReferenceStateMachine>::State) {
        reported(|| T::check_invariants(sut, model));
    }

    fn teardown(sut: Self::SystemUnderTest, model: <T::Reference as ReferenceStateMachine>::State) {
        reported(|| T::teardown(sut, model));
    }
}

/// Failure persistence that replays the committed seeds of `name` and saves new ones
/// under `target/` (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Regressions {
    committed: FileFailurePersistence,
    committed_path: PathBuf,
    found: FileFailurePersistence,
    found_path: PathBuf,
}

impl Regressions {
    /// The persistence of the suite `name` of the package at `manifest_dir` (pass
    /// `env!("CARGO_MANIFEST_DIR")`): reads `<manifest_dir>/proptest-regressions/<name>.txt`,
    /// writes `<target>/pipecheck/proptest-regressions/<name>.txt`, where `<target>` is
    /// the [target directory](crate::trace::location::target_dir) of the workspace checked.
    pub fn new(manifest_dir: &str, name: &str) -> Regressions {
        let manifest = Path::new(manifest_dir);
        let target = crate::trace::location::target_dir();
        let committed = manifest.join("proptest-regressions").join(format!("{name}.txt"));
        let found_path = target.join("pipecheck").join("proptest-regressions").join(format!("{name}.txt"));
        // proptest names files with `&'static str`; one leak per suite and run.
        let leak =
            |p: &Path| -> &'static str { Box::leak(p.to_string_lossy().into_owned().into_boxed_str()) };
        Regressions {
            committed: FileFailurePersistence::Direct(leak(&committed)),
            committed_path: committed,
            found: FileFailurePersistence::Direct(leak(&found_path)),
            found_path,
        }
    }

    /// Where new failure seeds are written.
    pub fn found_path(&self) -> &Path {
        &self.found_path
    }

    /// The committed seeds, replayed first.
    pub fn committed_path(&self) -> &Path {
        &self.committed_path
    }

    /// `self` as proptest's `Config::failure_persistence`.
    pub fn boxed(self) -> Option<Box<dyn FailurePersistence>> {
        Some(Box::new(self))
    }
}

impl FailurePersistence for Regressions {
    fn load_persisted_failures2(&self, source_file: Option<&'static str>) -> Vec<PersistedSeed> {
        let mut seeds = self.committed.load_persisted_failures2(source_file);
        seeds.extend(self.found.load_persisted_failures2(source_file));
        seeds
    }

    fn save_persisted_failure2(
        &mut self,
        source_file: Option<&'static str>,
        seed: PersistedSeed,
        shrunken_value: &dyn fmt::Debug,
    ) {
        if let Some(dir) = self.found_path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // proptest prints where it saved the seed and the line to add to the committed
        // file: a CI log carries its own replay.
        self.found.save_persisted_failure2(source_file, seed, shrunken_value);
    }

    fn box_clone(&self) -> Box<dyn FailurePersistence> {
        Box::new(self.clone())
    }

    fn eq(&self, other: &dyn FailurePersistence) -> bool {
        other.as_any().downcast_ref::<Regressions>().is_some_and(|o| o == self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use proptest::test_runner::{FailurePersistence, PersistedSeed};

    use super::Regressions;

    /// The advice a failure prints (proptest's: "add the following line to your copy of
    /// the file", then the seed) works here: that line, added to the committed file, is a
    /// seed replayed first.
    #[test]
    fn the_printed_line_added_to_the_committed_file_replays_that_seed() {
        let dir = std::env::temp_dir().join(format!("pipecheck-regressions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        std::fs::write(dir.join("Cargo.lock"), "").expect("a workspace marker");
        let regressions = Regressions::new(dir.to_str().expect("a UTF-8 path"), "advice");
        let line = "cc 0c1d1fe18cd74fc8cfaf3ce7e0e794125115ad233aa08f37171d5361439359ef";
        let seed: PersistedSeed = line.parse().expect("a seed in proptest's own form");
        assert_eq!(seed.to_string(), line, "the seed prints as the line proptest advises");
        std::fs::create_dir_all(regressions.committed_path().parent().expect("a folder"))
            .expect("the folder");
        std::fs::write(regressions.committed_path(), format!("{line}\n")).expect("the committed file");
        let replayed = regressions.load_persisted_failures2(None);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(replayed, vec![seed], "`{line}` did not replay the seed");
    }
}
