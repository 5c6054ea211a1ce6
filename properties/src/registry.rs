//! The list of every invariant. Loom models, shuttle scenarios and property tests all
//! check this list, so an invariant registered here is checked everywhere at once.

use pipecheck::InvariantId;

use pipecheck::Invariant;

use crate::invariants::ALL;
use crate::monitor::CheckConfig;
use crate::observation::Observation;

/// Builds the invariant from the run's settings.
pub(crate) type Constructor = fn(&CheckConfig) -> Box<dyn Invariant<Observation>>;

/// One invariant's registration: its id, how to build it for a run, and whether it
/// restarts at a pipe reset or is a further share of an id declared before it.
/// Declared by the `invariants!` lines of `invariants/mod.rs`.
#[derive(Clone, Copy)]
pub(crate) struct Registered {
    pub(crate) id: InvariantId,
    pub(crate) make: Constructor,
    /// It states a property of one run of a pipe, from its creation (or its last reset)
    /// until both sides complete. At a [`PipeEvent::Reset`] the monitor checks its
    /// end-of-run obligations (as [`Invariant::finish`] does at the end of a run) and
    /// starts it afresh, so the pipe's next run is checked as a new pipe. The others
    /// are about what a reset keeps (the segment pool, the buffer pools, the seed
    /// primitives) and run on.
    ///
    /// [`PipeEvent::Reset`]: pipecheck_pipe::PipeEvent::Reset
    pub(crate) per_pipe_run: bool,
    /// A further checker of an id declared before it, for one component (the seed
    /// primitives' share of an invariant the pipe has too reports under the same id).
    pub(crate) share: bool,
}

impl Registered {
    pub(crate) const fn new(id: InvariantId, make: Constructor) -> Registered {
        Registered { id, make, per_pipe_run: false, share: false }
    }

    pub(crate) const fn per_pipe_run(self) -> Registered {
        Registered { per_pipe_run: true, ..self }
    }

    pub(crate) const fn share(self) -> Registered {
        Registered { share: true, ..self }
    }
}

/// The declared invariants that are not shares.
fn declared() -> impl Iterator<Item = &'static Registered> {
    ALL.iter().filter(|r| !r.share)
}

/// How to start `invariant` afresh at a pipe reset: the registry line that built it, if
/// it is a per-pipe-run invariant ([`PER_PIPE_RUN`]). A share reporting under the same
/// id (a seed primitive's, e.g. [`PrimitiveWakeups`]) is told apart by its statement,
/// and runs on.
pub(crate) fn restart_of(invariant: &dyn Invariant<Observation>) -> Option<Constructor> {
    let id = invariant.id();
    let statement = invariant.statement();
    declared()
        .filter(|r| r.id == id && r.per_pipe_run)
        .map(|r| r.make)
        .find(|make| make(&CheckConfig::default()).statement() == statement)
}

/// How many invariants are declared, shares not counted.
const DECLARED: usize = {
    let (mut count, mut i) = (0, 0);
    while i < ALL.len() {
        if !ALL[i].share {
            count += 1;
        }
        i += 1;
    }
    count
};

/// The ids of all registered invariants, in registry order.
pub const INVARIANT_IDS: &[InvariantId] = &{
    let mut ids = [InvariantId::new(""); DECLARED];
    let (mut i, mut next) = (0, 0);
    while i < ALL.len() {
        if !ALL[i].share {
            ids[next] = ALL[i].id;
            next += 1;
        }
        i += 1;
    }
    ids
};

/// A fresh instance of every registered invariant for a run with `config`.
pub fn registry(config: &CheckConfig) -> Vec<Box<dyn Invariant<Observation>>> {
    // Declared first, then the shares: a violation names the declared checker first.
    declared().chain(ALL.iter().filter(|r| r.share)).map(|r| (r.make)(config)).collect()
}

/// The registered invariants' statements, by id: what reports print as a legend.
pub fn statements() -> Vec<(InvariantId, &'static str)> {
    declared().map(|r| (r.make)(&CheckConfig::default())).map(|i| (i.id(), i.statement())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constructor_builds_the_invariant_it_is_listed_under() {
        for r in ALL {
            assert_eq!(
                (r.make)(&CheckConfig::default()).id(),
                r.id,
                "the line for {} builds another checker",
                r.id
            );
        }
    }

    #[test]
    fn every_share_reports_under_a_declared_id_and_runs_on() {
        for r in ALL.iter().filter(|r| r.share) {
            assert!(INVARIANT_IDS.contains(&r.id), "{} has a share but no declaration", r.id);
            assert!(!r.per_pipe_run, "{}: a share restarts at a pipe reset", r.id);
        }
    }

    #[test]
    fn only_per_pipe_run_invariants_restart_at_a_reset() {
        for invariant in registry(&CheckConfig::default()) {
            let declared =
                ALL.iter().find(|r| (r.make)(&CheckConfig::default()).statement() == invariant.statement());
            let declared = declared.expect("every checker is declared");
            match restart_of(invariant.as_ref()).map(|make| make(&CheckConfig::default())) {
                Some(fresh) => {
                    assert!(declared.per_pipe_run, "{} restarts but is not per pipe run", invariant.id());
                    assert_eq!(
                        fresh.statement(),
                        invariant.statement(),
                        "{} restarts as another checker",
                        invariant.id()
                    );
                }
                None => {
                    assert!(!declared.per_pipe_run, "{} is per pipe run but does not restart", invariant.id())
                }
            }
        }
    }

    #[test]
    fn ids_are_distinct() {
        for (i, id) in INVARIANT_IDS.iter().enumerate() {
            assert!(!INVARIANT_IDS[..i].contains(id), "{id} is registered twice");
        }
    }

    /// A planted bug names its invariant by id (the pipe's in `core/src/check/fault.rs`, which
    /// cannot see this crate): each must be one that is checked.
    #[test]
    fn every_planted_bug_breaks_a_declared_invariant() {
        for fault in pipecheck_pipe::fault::ALL {
            assert!(
                INVARIANT_IDS.contains(&fault.breaks()),
                "{fault} breaks `{}`, which no line declares",
                fault.breaks()
            );
        }
    }
}
