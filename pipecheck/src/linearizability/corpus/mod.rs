//! A corpus of histories whose verdicts are known, so that the checker itself is
//! checked: a search made more lenient (a reordered pair of operations that do not
//! overlap accepted) or stricter (a pending operation never placed) flips an entry.
//! The campaign checks [`Corpus::builtin`] every time; [`super::faults`] plants such
//! checker bugs.
//!
//! The corpus is a text file, [`BUILTIN_FILE`], one history a line:
//!
//! ```text
//! # name                  verdict           model     | operations                                  | happens-before
//! sequential-stale-read   non-linearizable  register  | 0 0..10 write 1 -> ok ; 1 20..30 read -> 0
//! causal-joined-stale     non-linearizable  register causal | 0 0..10 write 1 -> ok ; 1 20..30 read -> 0 | #0 < #1
//! ```
//!
//! * the verdict is `linearizable` or `non-linearizable`; the model is `register`
//!   (`write N -> ok`, `read -> N`), `kv` (`put KEY N -> ok`, `get KEY -> N`,
//!   partitioned by key) or `queue` (`enq N -> ok`, `deq -> N`, which waits while the
//!   queue is empty), each starting at 0 or empty; `causal` after the model gives the
//!   history causal precedence (program order plus the edges of the last column, as
//!   loom's histories have) instead of real time;
//! * an operation is `THREAD INVOKED..RESPONDED CALL -> OUTPUT`; one that never returned
//!   is `THREAD INVOKED.. CALL` (pending: the model says what it may have done),
//!   `THREAD INVOKED..never CALL` (it never took effect) or
//!   `THREAD INVOKED..? CALL -> OUTPUT` (it may have taken effect, returning `OUTPUT`);
//! * `#i < #j` says the `i`-th operation of the line (from 0) happens before the `j`-th.
//!
//! Blank lines and lines starting with `#` are skipped. A line that does not parse,
//! or whose history is malformed, is a [`CorpusError`] naming the file and the line.

mod models;

use std::fmt;

use pipecheck_sync::InvariantId;

pub use self::models::{CorpusOp, CorpusOutput};
use self::models::{KeyValue, Queue, Register};
use super::check::check;
use super::history::{History, HistoryError, OpId, PendingPolicy};
use super::model::SequentialModel;
use super::outcome::{Budget, Linearization};

/// The built-in corpus's file, relative to the workspace root.
pub const BUILTIN_FILE: &str = "pipecheck/src/linearizability/corpus/histories.txt";

/// The verdict an entry expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expected {
    /// Some sequential order explains the history.
    Linearizable,
    /// None does.
    NonLinearizable,
}

impl Expected {
    /// How the corpus file writes it: `linearizable` or `non-linearizable`.
    pub const fn name(self) -> &'static str {
        match self {
            Expected::Linearizable => "linearizable",
            Expected::NonLinearizable => "non-linearizable",
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the checker answered on an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Found {
    /// The verdict it expects, or the other one.
    Verdict(Expected),
    /// The budget ran out (a corpus history is small: the checker is broken).
    Unknown,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Verdict(verdict) => verdict.fmt(f),
            Found::Unknown => f.write_str("unknown"),
        }
    }
}

/// The sequential object an entry's history is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CorpusModel {
    /// A register holding 0 at first.
    Register,
    /// A key-value store partitioned by key, each key holding 0 at first.
    KeyValue,
    /// A FIFO queue whose dequeue waits while it is empty.
    Queue,
}

impl CorpusModel {
    /// How the corpus file writes it.
    pub const fn name(self) -> &'static str {
        match self {
            CorpusModel::Register => "register",
            CorpusModel::KeyValue => "kv",
            CorpusModel::Queue => "queue",
        }
    }
}

/// One history of the corpus with its expected verdict.
#[derive(Clone, Debug)]
pub struct CorpusEntry {
    name: String,
    line: usize,
    expected: Expected,
    model: CorpusModel,
    history: History<CorpusOp, CorpusOutput>,
}

impl CorpusEntry {
    /// Its name (unique in its corpus).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its line in the corpus file (from 1).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The verdict it expects.
    pub fn expected(&self) -> Expected {
        self.expected
    }

    /// The object it is checked against.
    pub fn model(&self) -> CorpusModel {
        self.model
    }

    /// Its history.
    pub fn history(&self) -> &History<CorpusOp, CorpusOutput> {
        &self.history
    }

    /// Checks its history with [`check`], under whatever planted checker bug is
    /// switched on for this thread ([`super::faults`]).
    pub fn check(&self) -> CorpusResult {
        let budget = Budget::default().with_threads(1);
        let verdict = match self.model {
            CorpusModel::Register => decide(&Register, &self.history, budget),
            CorpusModel::KeyValue => decide(&KeyValue, &self.history, budget),
            CorpusModel::Queue => decide(&Queue, &self.history, budget),
        };
        CorpusResult { name: self.name.clone(), line: self.line, expected: self.expected, found: verdict }
    }
}

fn decide<M>(model: &M, history: &History<CorpusOp, CorpusOutput>, budget: Budget) -> Found
where
    M: SequentialModel<Input = CorpusOp, Output = CorpusOutput>,
{
    match check(model, history, budget) {
        Ok(Linearization::Linearizable(_)) => Found::Verdict(Expected::Linearizable),
        Ok(Linearization::NonLinearizable(_)) => Found::Verdict(Expected::NonLinearizable),
        // The corpus refuses malformed histories when it reads them.
        Ok(Linearization::Unknown { .. }) | Err(_) => Found::Unknown,
    }
}

/// An entry's expected verdict beside the checker's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusResult {
    /// The entry's name.
    pub name: String,
    /// Its line in the corpus file.
    pub line: usize,
    /// The verdict it expects.
    pub expected: Expected,
    /// The checker's.
    pub found: Found,
}

impl CorpusResult {
    /// Whether the checker's verdict differs from the expected one.
    pub fn flipped(&self) -> bool {
        self.found != Found::Verdict(self.expected)
    }

    /// What a flip breaks: the checker's verdicts ([`super::faults::CHECKER_CORPUS`]).
    pub fn invariant(&self) -> InvariantId {
        super::faults::CHECKER_CORPUS
    }
}

/// A line of a corpus file that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusError {
    /// The file.
    pub file: String,
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for CorpusError {}

/// Histories with known verdicts, read from a corpus file.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::corpus::{Corpus, Expected};
///
/// // A read that began after a write returned must see it.
/// let text = "\
/// stale-read  non-linearizable  register | 0 0..10 write 1 -> ok ; 1 20..30 read -> 0
/// fresh-read  linearizable      register | 0 0..10 write 1 -> ok ; 1 20..30 read -> 1
/// ";
/// let corpus = Corpus::parse("example.txt", text)?;
/// assert_eq!(corpus.entries()[0].expected(), Expected::NonLinearizable);
/// assert!(corpus.check().iter().all(|result| !result.flipped()));
///
/// let error = Corpus::parse("example.txt", "bad  linearizable  register | 0 0..10 write -> ok").unwrap_err();
/// assert_eq!(error.to_string(), "example.txt:1: `write` takes one value: `0 0..10 write -> ok`");
/// # Ok::<(), pipecheck::linearizability::corpus::CorpusError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Corpus {
    file: String,
    entries: Vec<CorpusEntry>,
}

impl Corpus {
    /// pipecheck's own corpus ([`BUILTIN_FILE`], built into the crate).
    ///
    /// # Errors
    ///
    /// A [`CorpusError`] naming the line of the file that does not parse (a test keeps
    /// the built-in file clean).
    pub fn builtin() -> Result<Corpus, CorpusError> {
        Corpus::parse(BUILTIN_FILE, include_str!("histories.txt"))
    }

    /// Reads a corpus from `text`, the contents of `file` (named in errors).
    ///
    /// # Errors
    ///
    /// A [`CorpusError`] for the first line that does not parse, repeats a name, or
    /// holds a malformed history.
    pub fn parse(file: &str, text: &str) -> Result<Corpus, CorpusError> {
        let mut entries: Vec<CorpusEntry> = Vec::new();
        for (at, line) in text.lines().enumerate() {
            let error = |message: String| CorpusError { file: file.to_owned(), line: at + 1, message };
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let entry = parse_entry(line, at + 1).map_err(error)?;
            if entries.iter().any(|other| other.name == entry.name) {
                return Err(error(format!("`{}` is already the name of another entry", entry.name)));
            }
            entries.push(entry);
        }
        Ok(Corpus { file: file.to_owned(), entries })
    }

    /// The file it was read from.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Its entries, in file order.
    pub fn entries(&self) -> &[CorpusEntry] {
        &self.entries
    }

    /// Checks every entry ([`CorpusEntry::check`]).
    pub fn check(&self) -> Vec<CorpusResult> {
        self.entries.iter().map(CorpusEntry::check).collect()
    }
}

fn parse_entry(line: &str, number: usize) -> Result<CorpusEntry, String> {
    let mut columns = line.split('|');
    let head: Vec<&str> = columns.next().unwrap_or("").split_whitespace().collect();
    let (name, expected, model, causal) = match head[..] {
        [name, expected, model] => (name, expected, model, false),
        [name, expected, model, "causal"] => (name, expected, model, true),
        _ => return Err("expected `NAME VERDICT MODEL [causal] | OPERATIONS [| EDGES]`".to_owned()),
    };
    let expected = match expected {
        "linearizable" => Expected::Linearizable,
        "non-linearizable" => Expected::NonLinearizable,
        other => return Err(format!("unknown verdict `{other}` (linearizable, non-linearizable)")),
    };
    let model = match model {
        "register" => CorpusModel::Register,
        "kv" => CorpusModel::KeyValue,
        "queue" => CorpusModel::Queue,
        other => return Err(format!("unknown model `{other}` (register, kv, queue)")),
    };
    let ops = columns.next().ok_or("no operations (`| OPERATIONS` missing)")?;
    let edges = columns.next();
    if columns.next().is_some() {
        return Err("more than three `|`-separated columns".to_owned());
    }
    let mut history = if causal { History::causal() } else { History::new() };
    for op in ops.split(';').map(str::trim).filter(|op| !op.is_empty()) {
        parse_op(op, model, &mut history)?;
    }
    if history.is_empty() {
        return Err("no operations".to_owned());
    }
    if let Some(edges) = edges {
        if !causal {
            return Err("happens-before edges need `causal` after the model".to_owned());
        }
        for edge in edges.split(',').map(str::trim).filter(|edge| !edge.is_empty()) {
            let (before, after) =
                edge.split_once('<').ok_or_else(|| format!("edge `{edge}` is not `#i < #j`"))?;
            let (before, after) = (op_index(before, &history)?, op_index(after, &history)?);
            history.order(before, after);
        }
    }
    history.validate().map_err(|e: HistoryError| format!("malformed history: {e}"))?;
    Ok(CorpusEntry { name: name.to_owned(), line: number, expected, model, history })
}

fn op_index(text: &str, history: &History<CorpusOp, CorpusOutput>) -> Result<OpId, String> {
    let text = text.trim();
    let index: usize = text
        .strip_prefix('#')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{text}` is not an operation number `#i`"))?;
    if index >= history.len() {
        return Err(format!("`{text}`: the line has {} operations", history.len()));
    }
    Ok(OpId(index))
}

/// How an operation ended, from its span's right side.
enum End {
    Returned(u64),
    Pending,
    Never,
    Indeterminate,
}

fn parse_op(
    op: &str,
    model: CorpusModel,
    history: &mut History<CorpusOp, CorpusOutput>,
) -> Result<(), String> {
    let (call, output) = match op.split_once("->") {
        Some((call, output)) => (call, Some(output.trim())),
        None => (op, None),
    };
    let words: Vec<&str> = call.split_whitespace().collect();
    let (thread, span, name, args) = match words.as_slice() {
        [thread, span, name, args @ ..] => (*thread, *span, *name, args),
        _ => return Err(format!("operation `{op}` is not `THREAD INVOKED..RESPONDED CALL -> OUTPUT`")),
    };
    let thread: usize = thread.parse().map_err(|_| format!("`{thread}` is not a thread number: `{op}`"))?;
    let (invoked, end) =
        span.split_once("..").ok_or_else(|| format!("`{span}` is not `INVOKED..RESPONDED`: `{op}`"))?;
    let stamp = |text: &str| text.parse::<u64>().map_err(|_| format!("`{text}` is not a time stamp: `{op}`"));
    let invoked = stamp(invoked)?;
    let end = match end {
        "" => End::Pending,
        "never" => End::Never,
        "?" => End::Indeterminate,
        responded => End::Returned(stamp(responded)?),
    };
    let input = parse_call(name, args, model).map_err(|why| format!("{why}: `{op}`"))?;
    let output = match output {
        None => None,
        Some("ok") if !input.returns_value() => Some(CorpusOutput::Ok),
        Some(value) if input.returns_value() => Some(CorpusOutput::Value(
            value.parse().map_err(|_| format!("`{name}` returns a number, not `{value}`: `{op}`"))?,
        )),
        Some(other) => return Err(format!("`{name}` returns {}, not `{other}`: `{op}`", expects(&input))),
    };
    match (end, output) {
        (End::Returned(responded), Some(output)) => {
            history.complete(thread, input, output, invoked, responded);
        }
        (End::Indeterminate, Some(output)) => {
            history.indeterminate(thread, input, output, invoked);
        }
        (End::Pending, None) => {
            history.pending(thread, input, invoked);
        }
        (End::Never, None) => {
            let id = history.pending(thread, input, invoked);
            history.set_pending_policy(id, PendingPolicy::NeverTookEffect);
        }
        (End::Returned(_) | End::Indeterminate, None) => {
            return Err(format!("`{op}` needs `-> {}`", expects(&input)));
        }
        (End::Pending | End::Never, Some(_)) => {
            return Err(format!("`{op}` did not return: no `->` (write `..?` for an unknown outcome)"));
        }
    }
    Ok(())
}

fn expects(input: &CorpusOp) -> &'static str {
    if input.returns_value() { "a number" } else { "ok" }
}

fn parse_call(name: &str, args: &[&str], model: CorpusModel) -> Result<CorpusOp, String> {
    let owner = match name {
        "write" | "read" => CorpusModel::Register,
        "put" | "get" => CorpusModel::KeyValue,
        "enq" | "deq" => CorpusModel::Queue,
        _ => return Err(format!("`{name}` is no operation (write, read, put, get, enq, deq)")),
    };
    if owner != model {
        return Err(format!("`{name}` is no operation of the {} model", model.name()));
    }
    let number = |text: &str| text.parse::<i64>().map_err(|_| format!("`{text}` is not a number"));
    Ok(match (name, args) {
        ("write", [value]) => CorpusOp::Write(number(value)?),
        ("read", []) => CorpusOp::Read,
        ("put", [key, value]) => CorpusOp::Put((*key).to_owned(), number(value)?),
        ("get", [key]) => CorpusOp::Get((*key).to_owned()),
        ("enq", [value]) => CorpusOp::Enqueue(number(value)?),
        ("deq", []) => CorpusOp::Dequeue,
        ("write" | "enq", _) => return Err(format!("`{name}` takes one value")),
        ("put", _) => return Err("`put` takes a key and a value".to_owned()),
        ("get", _) => return Err("`get` takes a key".to_owned()),
        _ => return Err(format!("`{name}` takes no argument")),
    })
}
