//! Jepsen's etcd register test: its model ([`EtcdRegister`]) and log parser
//! ([`parse`]), as in porcupine's `test_data/jepsen/etcd_*.log`.
//!
//! A log line is `INFO  jepsen.util - <process>\t<type>\t<f>\t<value>` with type
//! `:invoke`, `:ok`, `:fail` or `:info`. `:info` means the client timed out: the
//! operation may or may not have taken effect, at any time after its invocation, and
//! the process never issues another operation (Jepsen gives its successor a new
//! number). Such a write or compare-and-set is recorded with
//! [`History::indeterminate`]: if it took effect, it succeeded. Treating it as never
//! having taken effect (the model default for pending operations) refuses 20 of the
//! 23 linearizable etcd histories, where a later read sees the timed-out write.

use std::collections::HashMap;

use super::ParseError;
use crate::linearizability::{History, Operation, PendingPolicy, SequentialModel};

/// An operation on the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EtcdOp {
    /// Read the value.
    Read,
    /// Write a value.
    Write(i64),
    /// Set to `.1` if the value is `.0`.
    Cas(i64, i64),
}

/// What an operation returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EtcdOutput {
    /// The value read (`None`: the key does not exist yet).
    Read(Option<i64>),
    /// The write was acknowledged.
    Written,
    /// Whether the compare-and-set succeeded.
    Cas(bool),
}

/// One register, initially absent, with read, write and compare-and-set.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::SequentialModel;
/// use pipecheck::linearizability::foreign::etcd::{EtcdOp, EtcdOutput, EtcdRegister};
///
/// assert_eq!(EtcdRegister.step(&None, &EtcdOp::Cas(1, 2), &EtcdOutput::Cas(false)), Some(None));
/// assert_eq!(EtcdRegister.step(&Some(1), &EtcdOp::Cas(1, 2), &EtcdOutput::Cas(true)), Some(Some(2)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct EtcdRegister;

impl SequentialModel for EtcdRegister {
    type State = Option<i64>;
    type Input = EtcdOp;
    type Output = EtcdOutput;

    fn init(&self) -> Option<i64> {
        None
    }

    fn step(&self, state: &Option<i64>, input: &EtcdOp, output: &EtcdOutput) -> Option<Option<i64>> {
        match (input, output) {
            (EtcdOp::Read, EtcdOutput::Read(seen)) => (seen == state).then_some(*state),
            (EtcdOp::Write(value), EtcdOutput::Written) => Some(Some(*value)),
            (EtcdOp::Cas(from, to), EtcdOutput::Cas(swapped)) => {
                let matches = *state == Some(*from);
                (matches == *swapped).then_some(if matches { Some(*to) } else { *state })
            }
            _ => None,
        }
    }

    fn expected(&self, state: &Option<i64>, input: &EtcdOp) -> Option<EtcdOutput> {
        Some(match input {
            EtcdOp::Read => EtcdOutput::Read(*state),
            EtcdOp::Write(_) => EtcdOutput::Written,
            EtcdOp::Cas(from, _) => EtcdOutput::Cas(*state == Some(*from)),
        })
    }

    fn describe(&self, input: &EtcdOp, output: Option<&EtcdOutput>) -> String {
        let result = match output {
            None => "?".to_owned(),
            Some(EtcdOutput::Read(None)) => "nil".to_owned(),
            Some(EtcdOutput::Read(Some(value))) => value.to_string(),
            Some(EtcdOutput::Written) => "ok".to_owned(),
            Some(EtcdOutput::Cas(swapped)) => (if *swapped { "ok" } else { "fail" }).to_owned(),
        };
        match input {
            EtcdOp::Read => format!("read() -> {result}"),
            EtcdOp::Write(value) => format!("write({value}) -> {result}"),
            EtcdOp::Cas(from, to) => format!("cas({from}, {to}) -> {result}"),
        }
    }
}

/// An operation being parsed.
struct Parsed {
    process: usize,
    input: EtcdOp,
    output: Option<EtcdOutput>,
    invoked: u64,
    responded: Option<u64>,
}

/// Parses a Jepsen etcd log; lines that are not operations are skipped. Stamps are
/// line numbers. An operation without a definite outcome (`:info`, or no response in
/// the log) may have taken effect; a read that timed out is dropped (it has none).
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::foreign::etcd::{EtcdRegister, parse};
/// use pipecheck::linearizability::{Budget, check};
///
/// let log = "INFO  jepsen.util - 0\t:invoke\t:write\t3\n\
///            INFO  jepsen.util - 0\t:info\t:write\t:timed-out\n\
///            INFO  jepsen.util - 1\t:invoke\t:read\tnil\n\
///            INFO  jepsen.util - 1\t:ok\t:read\t3\n";
/// let history = parse(log).unwrap();
/// assert!(check(&EtcdRegister, &history, Budget::default()).unwrap().is_linearizable());
/// ```
///
/// # Errors
///
/// A [`ParseError`] for an operation line that does not parse, or a response
/// without its invocation.
pub fn parse(log: &str) -> Result<History<EtcdOp, EtcdOutput>, ParseError> {
    let mut ops: Vec<Option<Parsed>> = Vec::new();
    let mut in_flight: HashMap<usize, usize> = HashMap::new();
    let mut info = Vec::new();
    for (number, line) in log.lines().enumerate() {
        let error = |reason| ParseError { line: number + 1, reason };
        let Some((_, rest)) = line.split_once("jepsen.util - ") else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let [process, kind, f, value @ ..] = fields.as_slice() else { continue };
        let process: usize = process.parse().map_err(|_| error("process is not a number"))?;
        let stamp = number as u64;
        let number_at = |at: usize| -> Result<i64, ParseError> {
            value
                .get(at)
                .map(|text| text.trim_matches(|c| c == '[' || c == ']'))
                .and_then(|text| text.parse().ok())
                .ok_or(error("value is not a number"))
        };
        if *kind == ":invoke" {
            let input = match *f {
                ":read" => EtcdOp::Read,
                ":write" => EtcdOp::Write(number_at(0)?),
                ":cas" => EtcdOp::Cas(number_at(0)?, number_at(1)?),
                _ => return Err(error("unknown operation")),
            };
            in_flight.insert(process, ops.len());
            ops.push(Some(Parsed { process, input, output: None, invoked: stamp, responded: None }));
            continue;
        }
        let at = in_flight.remove(&process).ok_or(error("response without invocation"))?;
        let op = ops[at].as_mut().expect("in-flight operations are kept");
        match (*kind, *f) {
            (":ok", ":read") => {
                let seen = if value.first() == Some(&"nil") { None } else { Some(number_at(0)?) };
                op.output = Some(EtcdOutput::Read(seen));
            }
            (":ok", ":write") => op.output = Some(EtcdOutput::Written),
            (":ok" | ":fail", ":cas") => op.output = Some(EtcdOutput::Cas(*kind == ":ok")),
            (":fail" | ":info", ":read") => {
                ops[at] = None;
                continue;
            }
            (":info", _) => {
                info.push(at);
                continue;
            }
            _ => return Err(error("unknown response")),
        }
        op.responded = Some(stamp);
    }
    info.extend(in_flight.into_values());
    for at in info {
        if let Some(op) = ops[at].as_mut() {
            op.output = match op.input {
                EtcdOp::Read => None,
                EtcdOp::Write(_) => Some(EtcdOutput::Written),
                EtcdOp::Cas(..) => Some(EtcdOutput::Cas(true)),
            };
        }
    }
    let mut history = History::new();
    for op in ops.into_iter().flatten() {
        let complete = op.responded.is_some();
        let has_output = op.output.is_some();
        let id = history.push(Operation {
            thread: op.process,
            input: op.input,
            output: op.output,
            invoked: op.invoked,
            responded: op.responded,
        });
        if !complete {
            let policy =
                if has_output { PendingPolicy::MayHaveTakenEffect } else { PendingPolicy::NeverTookEffect };
            history.set_pending_policy(id, policy);
        }
    }
    Ok(history)
}
