//! Schedule minimization (shuttle has none): fewer preemptions and fewer steps while the
//! same invariant still breaks.
//!
//! A schedule is determined by its *deviations* from the default choice (see the
//! private `record` module). The minimizer runs delta debugging (Zeller's ddmin) over that
//! set: drop chunks of deviations, halving the chunk size when no chunk can go, and
//! keep a candidate only if it fails with the same invariant and is smaller (fewer
//! preemptions, then fewer steps). Then it tries to move each remaining deviation
//! earlier, which shortens the run before the failure. A livelock runs to the step bound
//! whatever its schedule, so its bound is then halved while the run still ends as a
//! livelock (a thread still waited over and over): the trace shows the spin, not
//! 200,000 steps of it. Every candidate is a real
//! execution under a `Guided` scheduler (`record`); the result is the
//! recorded schedule of the best one, so it replays exactly.

use std::collections::BTreeMap;

use crate::check::FailureKind;
use crate::trace::explore::Found;
use crate::trace::record::{Guided, Plan, Tape};
use crate::trace::run::{Failure, fresh, run};
use crate::trace::schedule::Schedule;
use crate::trace::trace_file::Size;
use pipecheck_sync::record::Detail;

/// Executions the minimizer may spend on one failure, by default.
pub const DEFAULT_RUNS: usize = 400;

/// The result of minimizing.
#[derive(Clone, Debug)]
pub struct Minimized {
    /// The smallest failing schedule found.
    pub schedule: Schedule,
    /// Its size.
    pub size: Size,
    /// Its failure (same invariant as the original).
    pub failure: Failure,
    /// Executions run while minimizing.
    pub runs: usize,
}

struct Search<'a> {
    found: &'a Found,
    max_steps: usize,
    runs: usize,
    max_runs: usize,
    best: Tape,
    best_failure: Failure,
}

impl Search<'_> {
    fn rank(tape: &Tape) -> (Size, usize) {
        (tape.size(), tape.deviations.len())
    }

    /// Runs `plan`; adopts it if it fails the same way and is smaller.
    fn attempt(&mut self, plan: Plan) -> bool {
        if self.runs >= self.max_runs {
            return false;
        }
        self.runs += 1;
        let (tape, slot) = fresh();
        let outcome = run(
            &self.found.scenario,
            self.found.fault,
            Guided::new(plan, tape.clone(), None),
            (&tape, &slot),
            self.max_steps,
            Detail::None,
        );
        match outcome.failure {
            Some(f)
                if f.invariant == self.found.failure.invariant
                    && Self::rank(&outcome.tape) < Self::rank(&self.best) =>
            {
                self.best = outcome.tape;
                self.best_failure = f;
                true
            }
            _ => false,
        }
    }

    fn deviations(&self, keep: impl Fn(usize) -> bool) -> Plan {
        let deviations: BTreeMap<usize, usize> = self
            .best
            .deviations
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, (&s, &t))| (s, t))
            .collect();
        Plan::Deviations { seed: self.best.schedule.seed, deviations }
    }

    /// ddmin over the deviations: try dropping each of `n` chunks.
    fn drop_chunks(&mut self) {
        let mut n = 2usize;
        while self.runs < self.max_runs {
            let len = self.best.deviations.len();
            if len == 0 {
                return;
            }
            let n_now = n.min(len);
            let chunk = len.div_ceil(n_now);
            let improved = (0..n_now).any(|c| {
                let plan = self.deviations(|i| i / chunk != c);
                self.attempt(plan)
            });
            if improved {
                n = (n - 1).max(2);
            } else if n_now >= len {
                return;
            } else {
                n = (n * 2).min(len);
            }
        }
    }

    /// For a livelock: halves the step bound while the run still ends as a livelock.
    fn lower_bound(&mut self) {
        while matches!(self.best_failure.kind, FailureKind::Livelock { .. })
            && self.max_steps > 2 * crate::check::LIVELOCK_WAITS as usize
        {
            let bound = self.max_steps;
            self.max_steps = bound / 2;
            let plan = self.deviations(|_| true);
            let before = self.best.size();
            if !self.attempt(plan)
                || !matches!(self.best_failure.kind, FailureKind::Livelock { .. })
                || self.best.size() == before
            {
                self.max_steps = bound;
                return;
            }
        }
    }

    /// Moves each deviation earlier while that still fails (and shortens the run).
    fn move_earlier(&mut self) {
        let mut index = 0;
        while index < self.best.deviations.len() && self.runs < self.max_runs {
            let (&step, &task) = self.best.deviations.iter().nth(index).expect("index is in range");
            let floor = if index == 0 {
                0
            } else {
                *self.best.deviations.keys().nth(index - 1).expect("in range") + 1
            };
            let mut distance = (step - floor) / 2;
            while distance > 0 {
                let mut plan_map = self.best.deviations.clone();
                plan_map.remove(&step);
                plan_map.insert(step - distance, task);
                let plan = Plan::Deviations { seed: self.best.schedule.seed, deviations: plan_map };
                if self.attempt(plan) {
                    break;
                }
                distance /= 2;
            }
            index += 1;
        }
    }
}

/// Minimizes `found`'s schedule with at most `max_runs` executions.
pub fn minimize(found: &Found, max_steps: usize, max_runs: usize) -> Minimized {
    // Replay the original exactly, to learn its deviations.
    let (tape, slot) = fresh();
    let plan = Plan::Exact { schedule: found.schedule.clone(), strict: true };
    let outcome = run(
        &found.scenario,
        found.fault,
        Guided::new(plan, tape.clone(), None),
        (&tape, &slot),
        max_steps,
        Detail::None,
    );
    let reproduced = outcome.failure.as_ref().is_some_and(|f| f.invariant == found.failure.invariant);
    if !reproduced {
        // Not reproducible (nondeterminism outside shuttle's control): keep it as found.
        return Minimized {
            schedule: found.schedule.clone(),
            size: found.size,
            failure: found.failure.clone(),
            runs: 1,
        };
    }
    let mut search = Search {
        found,
        max_steps,
        runs: 1,
        max_runs,
        best: outcome.tape,
        best_failure: outcome.failure.unwrap_or_else(|| found.failure.clone()),
    };
    search.drop_chunks();
    search.move_earlier();
    search.drop_chunks();
    search.lower_bound();
    Minimized {
        size: search.best.size(),
        schedule: search.best.schedule,
        failure: search.best_failure,
        runs: search.runs,
    }
}

/// `found` minimized (with at most `max_runs` executions) as a trace ready to save.
pub fn minimized_trace(found: &Found, max_steps: usize, max_runs: usize) -> crate::trace::trace_file::Trace {
    let minimized = minimize(found, max_steps, max_runs);
    found.trace_with(minimized.size, minimized.schedule)
}
