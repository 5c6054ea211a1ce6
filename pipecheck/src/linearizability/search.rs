//! Wing & Gong's search with Lowe's memoization, over one partition of a history,
//! resumable so that partitions can take turns.
//!
//! Wing and Gong ("Testing and verifying concurrent objects", 1993) build a
//! linearization one operation at a time, choosing any *minimal* operation (one that
//! no unplaced operation precedes) that the model accepts, and backtrack when none
//! fits. Lowe ("Testing for linearizability", 2017) prunes the search with a cache of
//! the configurations already explored ([`Visited`]), since a configuration that failed
//! once fails again.
//!
//! A thread runs one operation at a time and precedence includes program order, so
//! the placed set is always a prefix of each thread's operations: the candidates are
//! each thread's next operation, and the set is stored as a bitset or, for long
//! histories of few threads, as per-thread counts, whichever takes fewer words. Minimality then costs O(1) per candidate:
//!
//! * real time: a candidate is minimal iff no unplaced operation returned before its
//!   invocation, i.e. its invocation is at most the earliest response among the
//!   unplaced operations. As in porcupine, the unplaced operations' invocations and
//!   responses are kept in a list sorted by stamp ([`Events`], unlinked when an
//!   operation is placed, relinked when it is removed), so the candidates are the
//!   invocations before the list's first response, tried in invocation order, and
//!   enumerating them costs O(candidates) rather than O(threads). Pending operations,
//!   which a linearization may leave out, are kept in a second list and tried after
//!   the others;
//! * causal: iff its count of unplaced predecessors is 0; counts are updated when an
//!   operation is placed or removed, in O(its successors).
//!
//! A pending operation precedes nothing, so leaving one out of a linearization keeps
//! every later operation minimal, and two rules skip placements that a linearization
//! with fewer pending operations makes unnecessary:
//!
//! * a pending operation whose step leaves the state as it is;
//! * right after a pending operation, an operation whose step from the state before
//!   that pending operation reaches the same state (a write hiding a pending write):
//!   the pending operation was not needed.
//!
//! A linearization with the fewest pending operations breaks neither rule, so one is
//! still found when any exists, with the visited set too, as that count depends only
//! on the configuration (by induction on the operations left: a configuration whose
//! search failed though it had a completion implies a linearization with fewer pending
//! operations). On porcupine's etcd histories the search explores 17 094 states in
//! all, instead of 276 206 with neither rule (69 428 with the first alone) and 430 340
//! when pending operations are tried in invocation order with the others.

use std::time::{Duration, Instant};

use super::allowance::Allowance;
use super::faults::{CheckerAcceptsReorder, CheckerNeverPlacesPending};
use super::history::{History, OpId};
use super::model::SequentialModel;
use super::outcome::Exhausted;
use super::overlap::{Criterion, RelaxedAnswer, overlapping};
use super::partition::Part;
use super::visited::{Visited, zobrist};

/// No operation: the root frame's.
const ROOT: u32 = u32::MAX;

/// The most operations kept over all recorded dead ends (16 MiB): the picture needs a
/// few, and a long history's could otherwise take O(ops²) memory.
const DEAD_END_CAP: usize = 1 << 22;

/// How far a search got in one turn.
#[derive(Debug)]
pub(super) enum Step {
    /// A linearization of the partition.
    Linearizable(Vec<OpId>),
    /// None exists.
    NonLinearizable,
    /// Its quota for this turn is spent (or another partition failed): call again.
    Paused,
    /// The check's budget ran out.
    Exhausted(Exhausted),
}

/// A configuration on the search path: the state reached, the operation placed to
/// reach it, and where the enumeration of its successors stands.
#[derive(Debug)]
struct Frame<S> {
    /// The state reached, as its entry in the visited set (which owns it).
    state: u32,
    op: u32,
    /// The next thread whose next operation to try or, with [`Events`], the next event.
    cursor: u32,
    /// Without [`Events`], under real time: the earliest response among the threads'
    /// next operations.
    earliest_response: u64,
    /// States a pending operation may lead to, still to try, and that operation.
    alternatives: Vec<S>,
    alternative_op: u32,
    /// Whether some successor was new.
    extended: bool,
    /// The relaxed answer `op` gave to reach it, if it gave one
    /// ([`SequentialModel::step_while_overlapped`]).
    relaxed: Option<&'static str>,
    /// With [`Events`]: whether the pass over pending operations began (and
    /// `earliest_response` is known).
    pending_pass: bool,
}

/// The search of one partition, paused between turns.
#[derive(Debug)]
pub(super) struct Search<'h, M: SequentialModel> {
    model: &'h M,
    history: &'h History<M::Input, M::Output>,
    pub(super) part: Part,
    zobrist: Vec<u64>,
    /// Under real time (without [`CheckerAcceptsReorder`]): the unplaced operations'
    /// events in stamp order, which enumerate the candidates.
    events: Option<Events>,
    /// The placed set, exactly: a bitset of operations, or, when fewer words, each
    /// thread's count of placed operations (32 bits each; the set is a prefix per thread).
    bits: Vec<u64>,
    by_counts: bool,
    hash: u64,
    /// Per thread, how many of its operations are placed.
    next: Vec<u32>,
    /// Causal: per operation, its unplaced predecessors.
    preds: Vec<u32>,
    required_left: usize,
    stack: Vec<Frame<M::State>>,
    visited: Visited<M::State>,
    /// The longest path reached.
    best: Vec<u32>,
    /// How many of the current path's first operations are `best`'s.
    best_agrees: usize,
    /// Per operation, the longest path that ended with it and could not be extended;
    /// empty when the check does not report dead ends.
    dead_ends: Vec<Vec<u32>>,
    /// Operations held in `dead_ends`, at most [`DEAD_END_CAP`].
    dead_end_ops: usize,
    /// Time spent in turns.
    pub(super) elapsed: Duration,
    /// Cache hits of a released visited set.
    released_hits: u64,
    /// Configurations explored (the root not counted).
    explored: u64,
    /// The planted checker bugs switched on when the search began (see [`super::faults`]).
    planted: Planted,
    /// Whether relaxed answers are accepted.
    criterion: Criterion,
    /// Whether the model could not say what some pending operation without a recorded
    /// output did, in a state where it was tried: a failure is then not definite.
    pub(super) undescribed: bool,
}

/// Which planted checker bugs a search runs with, read once on the thread that made it
/// (partitions may be searched on other threads).
#[derive(Clone, Copy, Debug, Default)]
struct Planted {
    /// [`CheckerAcceptsReorder`]: every thread's next operation counts as minimal.
    accepts_reorder: bool,
    /// [`CheckerNeverPlacesPending`]: operations that did not return are never tried.
    never_places_pending: bool,
}

impl Planted {
    fn current() -> Planted {
        Planted {
            accepts_reorder: CheckerAcceptsReorder.is_active(),
            never_places_pending: CheckerNeverPlacesPending.is_active(),
        }
    }
}

impl<'h, M: SequentialModel> Search<'h, M> {
    /// A search of `part`, not started, recording dead ends if `dead_ends`.
    pub(super) fn new(
        model: &'h M,
        history: &'h History<M::Input, M::Output>,
        part: Part,
        criterion: Criterion,
        dead_ends: bool,
    ) -> Self {
        let n = part.ops.len();
        let by_counts = part.threads().div_ceil(2) < n.div_ceil(64);
        let words = if by_counts { part.threads().div_ceil(2) } else { n.div_ceil(64) }.max(1);
        let planted = Planted::current();
        let events = (part.causal.is_none() && !planted.accepts_reorder).then(|| Events::new(&part));
        Search {
            model,
            history,
            zobrist: (0..n).map(zobrist).collect(),
            events,
            bits: vec![0; words],
            by_counts,
            hash: 0,
            next: vec![0; part.threads()],
            preds: part.causal.as_ref().map(|causal| causal.preds.clone()).unwrap_or_default(),
            required_left: part.ops.iter().filter(|op| op.required).count(),
            // A path places each operation at most once: its frames and the longest
            // path never grow past this (up to a bound, for huge partitions).
            stack: Vec::with_capacity((n + 1).min(1 << 12)),
            visited: Visited::new(words, n),
            best: Vec::with_capacity(n.min(1 << 12)),
            best_agrees: 0,
            dead_ends: if dead_ends { vec![Vec::new(); n] } else { Vec::new() },
            dead_end_ops: 0,
            elapsed: Duration::ZERO,
            released_hits: 0,
            explored: 0,
            planted,
            criterion,
            undescribed: false,
            part,
        }
    }

    /// Configurations explored (the root not counted).
    pub(super) fn states(&self) -> u64 {
        self.explored
    }

    /// Probes that found a configuration explored before.
    pub(super) fn cache_hits(&self) -> u64 {
        self.visited.hits + self.released_hits
    }

    /// Frees the cache once the partition is decided (large buffers on the reaper
    /// thread, see [`Visited::dispose`]); the bytes it held.
    pub(super) fn release(&mut self) -> u64 {
        let bytes = self.visited.bytes();
        self.released_hits += self.visited.hits;
        std::mem::replace(&mut self.visited, Visited::new(1, 0)).dispose();
        self.stack = Vec::new();
        let dead_ends = std::mem::take(&mut self.dead_ends);
        super::reaper::free(dead_ends, 4 * self.dead_end_ops as u64);
        self.dead_end_ops = 0;
        bytes
    }

    /// Searches on until decided, paused by `allowance`, or out of budget.
    pub(super) fn run(&mut self, allowance: &mut Allowance<'_>) -> Step {
        let started = Instant::now();
        let step = self.turn(allowance);
        self.elapsed += started.elapsed();
        step
    }

    fn turn(&mut self, allowance: &mut Allowance<'_>) -> Step {
        if self.stack.is_empty() {
            if self.required_left == 0 {
                return Step::Linearizable(Vec::new());
            }
            let init = self.model.init();
            let hash = Visited::hash(0, &init);
            let heap = |state: &M::State| self.model.state_heap_bytes(state);
            match self.visited.insert(hash, &self.bits, init, heap, allowance) {
                Err(why) => return Step::Exhausted(why),
                Ok(entry) => self.push(ROOT, entry.expect("the first state is new"), None),
            }
        }
        loop {
            let Some((op, state, relaxed)) = self.successor() else {
                let frame = self.stack.pop().expect("the loop runs with a frame");
                if frame.op == ROOT {
                    return Step::NonLinearizable;
                }
                // The path is now `self.stack.len() - 1` operations long.
                self.best_agrees = self.best_agrees.min(self.stack.len() - 1);
                if !frame.extended {
                    self.dead_end(frame.op);
                }
                self.unplace(frame.op);
                continue;
            };
            // Probe with the placed set and hash only: most successors were seen before.
            self.mark(op);
            let hash = Visited::hash(self.hash, &state);
            let model = self.model;
            let heap = |state: &M::State| model.state_heap_bytes(state);
            let entry = match self.visited.insert(hash, &self.bits, state, heap, allowance) {
                Err(why) => {
                    self.unmark(op);
                    return Step::Exhausted(why);
                }
                Ok(None) => {
                    self.unmark(op);
                    continue;
                }
                Ok(Some(entry)) => entry,
            };
            self.place(op);
            self.explored += 1;
            if let Some(top) = self.stack.last_mut() {
                top.extended = true;
            }
            self.push(op, entry, relaxed);
            if self.required_left == 0 {
                return Step::Linearizable(self.path().map(|op| self.part.ops[op as usize].id).collect());
            }
            if self.stack.len() - 1 > self.best.len() {
                self.record_best();
            }
            if let Err(why) = allowance.spend_state() {
                return why.map_or(Step::Paused, Step::Exhausted);
            }
        }
    }

    /// Makes the current path, longer than any before, the longest: usually it extends
    /// the longest, so only what differs after their common prefix is copied.
    fn record_best(&mut self) {
        let agree = self.best_agrees.min(self.stack.len() - 1);
        let agree = agree
            + self.stack[1 + agree..]
                .iter()
                .zip(&self.best[agree..])
                .take_while(|(frame, op)| frame.op == **op)
                .count();
        self.best.truncate(agree);
        self.best.extend(self.stack[1 + agree..].iter().map(|frame| frame.op));
        self.best_agrees = self.best.len();
    }

    /// The operations placed, in order.
    fn path(&self) -> impl Iterator<Item = u32> + '_ {
        self.stack.iter().skip(1).map(|frame| frame.op)
    }

    /// The relaxed answers on the current path (after a linearization is found: the
    /// answers it needs).
    pub(super) fn relaxed_answers(&self) -> Vec<RelaxedAnswer> {
        let used = self.stack.iter().filter_map(|frame| Some((frame.op, frame.relaxed?)));
        used.map(|(op, answer)| RelaxedAnswer { op: self.part.ops[op as usize].id, answer }).collect()
    }

    /// Pushes the configuration reached by placing `op` (already placed) in `state`,
    /// with the `relaxed` answer it gave.
    fn push(&mut self, op: u32, state: u32, relaxed: Option<&'static str>) {
        if let Some(events) = &self.events {
            let cursor = events.first();
            self.stack.push(Frame {
                state,
                op,
                cursor,
                earliest_response: u64::MAX,
                alternatives: Vec::new(),
                alternative_op: ROOT,
                extended: false,
                relaxed,
                pending_pass: false,
            });
            return;
        }
        let earliest_response = match self.part.causal {
            Some(_) => u64::MAX,
            None => (self.next.iter().enumerate())
                .filter_map(|(thread, &next)| self.part.thread(thread).nth(next as usize))
                .map(|at| self.part.ops[at as usize].responded)
                .min()
                .unwrap_or(u64::MAX),
        };
        self.stack.push(Frame {
            state,
            op,
            cursor: 0,
            earliest_response,
            alternatives: Vec::new(),
            alternative_op: ROOT,
            extended: false,
            relaxed,
            pending_pass: false,
        });
    }

    /// The next untried successor of the top configuration: an operation, minimal,
    /// a state the model lets it lead to, and the relaxed answer that led there if any.
    fn successor(&mut self) -> Option<(u32, M::State, Option<&'static str>)> {
        let Search {
            model,
            history,
            part,
            events,
            next,
            preds,
            stack,
            visited,
            planted,
            criterion,
            undescribed,
            ..
        } = self;
        let (frame, path) = stack.split_last_mut()?;
        let current = visited.state(frame.state);
        // When the top configuration was reached by placing a pending operation: the
        // state before it (see the module's doc).
        let before_pending = match path.last() {
            Some(parent) if !part.ops[frame.op as usize].required => Some(visited.state(parent.state)),
            _ => None,
        };
        loop {
            if let Some(state) = frame.alternatives.pop() {
                return Some((frame.alternative_op, state, None));
            }
            let at = match events {
                Some(events) if !frame.pending_pass => {
                    // Every invocation before the first response is minimal. Operations
                    // that returned come first; then those pending, which a linearization
                    // may leave out, invoked before that response.
                    let node = frame.cursor;
                    let Some(at) = events.invocation(node) else {
                        frame.earliest_response = match node {
                            NIL => u64::MAX,
                            _ => part.ops[(node / 2 - 1) as usize].responded,
                        };
                        frame.pending_pass = true;
                        frame.cursor = events.first_pending();
                        continue;
                    };
                    frame.cursor = events.after(node);
                    at
                }
                Some(events) => {
                    let node = frame.cursor;
                    if node == NIL || part.ops[(node / 2) as usize].invoked > frame.earliest_response {
                        return None;
                    }
                    frame.cursor = events.after(node);
                    node / 2
                }
                None => {
                    let thread = frame.cursor as usize;
                    if thread >= part.threads() {
                        return None;
                    }
                    frame.cursor += 1;
                    let Some(at) = part.thread(thread).nth(next[thread] as usize) else { continue };
                    let minimal = match part.causal {
                        Some(_) => preds[at as usize] == 0,
                        None => part.ops[at as usize].invoked <= frame.earliest_response,
                    };
                    if !(minimal || planted.accepts_reorder) {
                        continue;
                    }
                    at
                }
            };
            let local = &part.ops[at as usize];
            if planted.never_places_pending && !local.required {
                continue;
            }
            let op = history.get(local.id);
            match &op.output {
                Some(output) => {
                    if let Some(state) = model.step(current, &op.input, output) {
                        if !local.required && state == *current {
                            // A pending operation that changes nothing (see the module's doc).
                            continue;
                        }
                        let without_pending =
                            before_pending.and_then(|before| model.step(before, &op.input, output));
                        if without_pending.is_some_and(|without| without == state) {
                            // The pending operation before it was not needed (the module's doc).
                            continue;
                        }
                        return Some((at, state, None));
                    }
                    if *criterion == Criterion::PendingAware {
                        // The root frame placed nothing.
                        let placed = path.iter().chain(std::iter::once(&*frame)).skip(1).map(|f| f.op);
                        let overlapping: Vec<&M::Input> = overlapping(part, placed, at)
                            .into_iter()
                            .map(|placed| &history.get(part.ops[placed as usize].id).input)
                            .collect();
                        if let Some(relaxed) =
                            model.step_while_overlapped(current, &op.input, output, &overlapping)
                        {
                            return Some((at, relaxed.state, Some(relaxed.answer)));
                        }
                    }
                }
                None => {
                    frame.alternatives = model.step_pending(current, &op.input);
                    frame.alternative_op = at;
                    if local.unrecorded && frame.alternatives.is_empty() {
                        *undescribed |= model.expected(current, &op.input).is_none();
                    }
                    // Pending, so not required: leaving the state as it is is not placing it.
                    frame.alternatives.retain(|state| state != current);
                }
            }
        }
    }

    /// Marks `op` in the placed set and its hash only: enough to probe the visited set.
    #[inline]
    fn mark(&mut self, op: u32) {
        let at = op as usize;
        let thread = self.part.ops[at].thread;
        match self.by_counts {
            true => self.bits[thread as usize / 2] += 1 << (32 * (thread % 2)),
            false => self.bits[at / 64] ^= 1 << (at % 64),
        }
        self.hash ^= self.zobrist[at];
    }

    /// Undoes [`Search::mark`].
    #[inline]
    fn unmark(&mut self, op: u32) {
        let at = op as usize;
        let thread = self.part.ops[at].thread;
        match self.by_counts {
            true => self.bits[thread as usize / 2] -= 1 << (32 * (thread % 2)),
            false => self.bits[at / 64] ^= 1 << (at % 64),
        }
        self.hash ^= self.zobrist[at];
    }

    /// Marks `op` placed, after [`Search::mark`]: what enumerates the successors.
    fn place(&mut self, op: u32) {
        let at = op as usize;
        let local = self.part.ops[at];
        if let Some(events) = &mut self.events {
            events.unlink(op);
        }
        self.next[local.thread as usize] += 1;
        self.required_left -= usize::from(local.required);
        if let Some(causal) = &self.part.causal {
            for &succ in &causal.succs[at] {
                // Wrapping: only with `CheckerAcceptsReorder` is a successor placed before
                // its predecessor, and then its count is never read until restored.
                self.preds[succ as usize] = self.preds[succ as usize].wrapping_sub(1);
            }
        }
    }

    /// Marks `op` unplaced again, and [`Search::unmark`]s it.
    fn unplace(&mut self, op: u32) {
        let at = op as usize;
        let local = self.part.ops[at];
        self.unmark(op);
        if let Some(events) = &mut self.events {
            events.relink(op);
        }
        self.next[local.thread as usize] -= 1;
        self.required_left += usize::from(local.required);
        if let Some(causal) = &self.part.causal {
            for &succ in &causal.succs[at] {
                self.preds[succ as usize] = self.preds[succ as usize].wrapping_add(1);
            }
        }
    }

    /// Records the current path, which no successor extends, if it is the longest
    /// ending with `op`.
    fn dead_end(&mut self, op: u32) {
        let length = self.stack.len();
        let Some(old) = self.dead_ends.get(op as usize).map(Vec::len) else { return };
        if length > old && self.dead_end_ops - old + length <= DEAD_END_CAP {
            let mut path = std::mem::take(&mut self.dead_ends[op as usize]);
            path.clear();
            path.extend(self.path());
            path.push(op);
            self.dead_ends[op as usize] = path;
            self.dead_end_ops += length - old;
        }
    }

    /// The longest linearizable prefix found, as history operations.
    pub(super) fn longest_prefix(&self) -> Vec<OpId> {
        self.best.iter().map(|&op| self.part.ops[op as usize].id).collect()
    }

    /// After the longest prefix, the returned operation that must come next: under
    /// real time, the earliest response among those not placed (everything invoked
    /// after it must follow it); under causal precedence, the first returned one with
    /// every predecessor placed.
    pub(super) fn unplaced(&self) -> OpId {
        let mut placed = vec![false; self.part.ops.len()];
        for &op in &self.best {
            placed[op as usize] = true;
        }
        let frontier = (0..self.part.threads())
            .filter_map(|thread| self.part.thread(thread).find(|&op| !placed[op as usize]));
        let required =
            frontier.map(|op| (op, &self.part.ops[op as usize])).filter(|(_, local)| local.required);
        let chosen = match &self.part.causal {
            None => required.min_by_key(|(_, local)| local.responded).map(|(_, local)| local.id),
            Some(causal) => {
                let ready = |op: u32| {
                    (0..self.part.ops.len()).all(|pred| placed[pred] || !causal.succs[pred].contains(&op))
                };
                let candidates: Vec<_> = required.collect();
                let first = |ready_only: bool| {
                    candidates
                        .iter()
                        .filter(|(op, _)| !ready_only || ready(*op))
                        .map(|(_, local)| local.id)
                        .min_by_key(|id| id.0)
                };
                first(true).or_else(|| first(false))
            }
        };
        chosen.expect("a failed search leaves a returned operation unplaced")
    }

    /// The paths that could not be extended, longest first, one per last operation:
    /// where every linearization attempt failed.
    pub(super) fn dead_ends(&self) -> Vec<Vec<OpId>> {
        let mut ends: Vec<&Vec<u32>> = self.dead_ends.iter().filter(|path| !path.is_empty()).collect();
        ends.sort_by_key(|path| std::cmp::Reverse(path.len()));
        ends.iter().map(|path| path.iter().map(|&op| self.part.ops[op as usize].id).collect()).collect()
    }
}

/// No event: the end of the list.
const NIL: u32 = u32::MAX;

/// The invocations and responses of a partition's unplaced operations, in stamp order
/// (an invocation before a response of the same stamp, as they overlap), as a doubly
/// linked list over arrays: placing an operation unlinks its events in O(1), and since
/// operations are removed in the reverse order they were placed, relinking restores
/// the list exactly (dancing links).
///
/// Node 0 is the head; node `1 + 2 * op` is `op`'s invocation and `2 + 2 * op` its
/// response. Pending operations have no response, and their invocations are in a
/// second list, by invocation stamp, whose head is the last node: they are tried after
/// the others, as a linearization may leave them out.
#[derive(Debug)]
struct Events {
    prev: Vec<u32>,
    next: Vec<u32>,
}

impl Events {
    /// The list of all of `part`'s events.
    fn new(part: &Part) -> Events {
        let nodes = 2 + 2 * part.ops.len();
        // Pending operations are few: sorted by invocation stamp, then node.
        let mut pending: Vec<(u64, u32)> = Vec::new();
        for (at, op) in part.ops.iter().enumerate() {
            if op.responded == u64::MAX {
                pending.push((op.invoked, 1 + 2 * at as u32));
            }
        }
        pending.sort_unstable();
        let mut events = Events { prev: vec![NIL; nodes], next: vec![NIL; nodes] };
        events.link(0, Events::returned_in_order(part));
        events.link(nodes as u32 - 1, pending.into_iter().map(|(_, node)| node));
        events
    }

    /// Links `list` after `head`, in its order.
    fn link(&mut self, head: u32, list: impl IntoIterator<Item = u32>) {
        let mut last = head;
        for node in list {
            self.next[last as usize] = node;
            self.prev[node as usize] = last;
            last = node;
        }
    }

    /// The events of `part`'s operations that returned, as nodes in stamp order, an
    /// invocation before a response of the same stamp, then by node.
    fn returned_in_order(part: &Part) -> Vec<u32> {
        let (mut low, mut high, mut events) = (u64::MAX, 0, 0usize);
        for op in &part.ops {
            if op.responded != u64::MAX {
                (low, high, events) = (low.min(op.invoked), high.max(op.responded), events + 2);
            }
        }
        // Stamps that span few values (line numbers, a recorder's counter): a counting
        // sort, in linear time. Placing every invocation before any response, each in
        // node order, keeps that order within a stamp.
        if events > 0 && high - low < 4 * events as u64 + 64 {
            let mut starts = vec![0u32; (high - low) as usize + 2];
            for op in &part.ops {
                if op.responded != u64::MAX {
                    starts[(op.invoked - low) as usize + 1] += 1;
                    starts[(op.responded - low) as usize + 1] += 1;
                }
            }
            let mut sum = 0;
            for start in &mut starts {
                sum += *start;
                *start = sum;
            }
            let mut order = vec![NIL; events];
            for response in [false, true] {
                for (at, op) in part.ops.iter().enumerate() {
                    if op.responded != u64::MAX {
                        let (stamp, node) = match response {
                            false => (op.invoked, 1 + 2 * at as u32),
                            true => (op.responded, 2 + 2 * at as u32),
                        };
                        let slot = &mut starts[(stamp - low) as usize];
                        order[*slot as usize] = node;
                        *slot += 1;
                    }
                }
            }
            return order;
        }
        let returned = || (part.ops.iter().enumerate()).filter(|(_, op)| op.responded != u64::MAX);
        // Sorted by stamp, then invocations first, then node: packed in one integer, one
        // word when the stamps allow.
        let key = |stamp: u64, response: bool, node: u32| {
            u128::from(stamp) << 33 | u128::from(response) << 32 | u128::from(node)
        };
        let mut order: Vec<u128> = Vec::with_capacity(events);
        for (at, op) in returned() {
            order.push(key(op.invoked, false, 1 + 2 * at as u32));
            order.push(key(op.responded, true, 2 + 2 * at as u32));
        }
        if part.ops.len() < 1 << 30 && high < 1 << 31 {
            let mut small: Vec<u64> = order.iter().map(|&key| key as u64).collect();
            small.sort_unstable();
            return small.into_iter().map(|key| key as u32).collect();
        }
        order.sort_unstable();
        order.into_iter().map(|key| key as u32).collect()
    }

    /// The first event.
    #[inline]
    fn first(&self) -> u32 {
        self.next[0]
    }

    /// The first pending operation's invocation.
    #[inline]
    fn first_pending(&self) -> u32 {
        self.next[self.next.len() - 1]
    }

    /// The event after `node`.
    #[inline]
    fn after(&self, node: u32) -> u32 {
        self.next[node as usize]
    }

    /// The operation invoked at `node` (of the first list); `None` at a response or
    /// the end.
    #[inline]
    fn invocation(&self, node: u32) -> Option<u32> {
        (node != NIL && node % 2 == 1).then_some(node / 2)
    }

    /// Takes node `node` out of the list (it keeps its links, for [`Events::restore`]).
    #[inline]
    fn remove(&mut self, node: u32) {
        let (prev, next) = (self.prev[node as usize], self.next[node as usize]);
        self.next[prev as usize] = next;
        if next != NIL {
            self.prev[next as usize] = prev;
        }
    }

    /// Puts back node `node`, the last removed.
    #[inline]
    fn restore(&mut self, node: u32) {
        let (prev, next) = (self.prev[node as usize], self.next[node as usize]);
        self.next[prev as usize] = node;
        if next != NIL {
            self.prev[next as usize] = node;
        }
    }

    /// Takes out `op`'s events (it was placed).
    #[inline]
    fn unlink(&mut self, op: u32) {
        self.remove(1 + 2 * op);
        let response = 2 + 2 * op;
        if self.prev[response as usize] != NIL {
            self.remove(response);
        }
    }

    /// Puts back `op`'s events (it was removed), in the reverse order of [`Events::unlink`].
    #[inline]
    fn relink(&mut self, op: u32) {
        let response = 2 + 2 * op;
        if self.prev[response as usize] != NIL {
            self.restore(response);
        }
        self.restore(1 + 2 * op);
    }
}

#[cfg(test)]
mod pending_rules_tests {
    use crate::linearizability::foreign::etcd::{EtcdOp, EtcdOutput, EtcdRegister};
    use crate::linearizability::{Budget, History, Linearization, check_report};

    /// Timed-out writes and compare-and-sets (pending, may have taken effect) on
    /// threads 10.., then a read on thread 0 that saw `seen`; the verdict, and the
    /// pending operations the linearization placed.
    fn read_after(pending: &[EtcdOp], seen: i64) -> (bool, usize) {
        let mut history = History::new();
        for (at, op) in pending.iter().enumerate() {
            let output = match op {
                EtcdOp::Cas(..) => EtcdOutput::Cas(true),
                _ => EtcdOutput::Written,
            };
            history.indeterminate(10 + at, *op, output, at as u64);
        }
        history.complete(0, EtcdOp::Read, EtcdOutput::Read(Some(seen)), 100, 101);
        let report = check_report(&EtcdRegister, &history, Budget::default()).unwrap();
        match report.verdict {
            Linearization::Linearizable(order) => (true, order.len() - 1),
            _ => (false, 0),
        }
    }

    #[test]
    fn a_write_hiding_a_pending_write_still_finds_what_needs_both() {
        use EtcdOp::{Cas, Write};
        // 2 after 1 is 2 whether or not 1 was written: one write is placed.
        assert_eq!(read_after(&[Write(1), Write(2)], 2), (true, 1));
        // A compare-and-set needs the write before it: both are placed.
        assert_eq!(read_after(&[Write(1), Cas(1, 2)], 2), (true, 2));
        assert_eq!(read_after(&[Cas(1, 2), Write(1), Cas(2, 3)], 3), (true, 3));
        // A write of the value already there is never needed.
        assert_eq!(read_after(&[Write(1), Write(1)], 1), (true, 1));
        assert_eq!(read_after(&[Write(1), Cas(2, 3)], 3), (false, 0));
    }
}
