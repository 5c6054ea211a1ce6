//! The key-value format of porcupine's `test_data/kv/*.txt`: its model ([`KvStore`],
//! partitioned per key) and parser ([`parse`]).
//!
//! A line is `{:process 0, :type :invoke, :f :append, :key "0", :value "x 0 0 y"}`,
//! type `:invoke` or `:ok`, operation `:get`, `:put` or `:append`.

use std::collections::HashMap;

use super::ParseError;
use crate::linearizability::{History, Operation, SequentialModel};

/// An operation on the store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KvOp {
    /// Read a key ("" if absent).
    Get(String),
    /// Set a key.
    Put(String, String),
    /// Append to a key's value.
    Append(String, String),
}

impl KvOp {
    /// The key it acts on.
    pub fn key(&self) -> &str {
        match self {
            KvOp::Get(key) | KvOp::Put(key, _) | KvOp::Append(key, _) => key,
        }
    }
}

/// A string store; each key is its own partition, whose state is that key's value.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::SequentialModel;
/// use pipecheck::linearizability::foreign::kv::{KvOp, KvStore};
///
/// let state = KvStore.step(&"x".to_owned(), &KvOp::Append("k".into(), "y".into()), &None).unwrap();
/// assert_eq!(KvStore.step(&state, &KvOp::Get("k".into()), &Some("xy".into())), Some("xy".to_owned()));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct KvStore;

impl SequentialModel for KvStore {
    type State = String;
    type Input = KvOp;
    /// The value a get returned; `None` for put and append.
    type Output = Option<String>;

    fn init(&self) -> String {
        String::new()
    }

    fn step(&self, state: &String, input: &KvOp, output: &Option<String>) -> Option<String> {
        match input {
            KvOp::Get(_) => (output.as_deref() == Some(state.as_str())).then(|| state.clone()),
            KvOp::Put(_, value) => Some(value.clone()),
            KvOp::Append(_, value) => Some(format!("{state}{value}")),
        }
    }

    fn expected(&self, state: &String, input: &KvOp) -> Option<Option<String>> {
        Some(matches!(input, KvOp::Get(_)).then(|| state.clone()))
    }

    fn partition(&self, input: &KvOp) -> impl std::hash::Hash + Eq + std::fmt::Debug {
        input.key().to_owned()
    }

    fn state_heap_bytes(&self, state: &String) -> usize {
        state.capacity()
    }

    fn describe(&self, input: &KvOp, output: Option<&Option<String>>) -> String {
        match (input, output) {
            (KvOp::Get(key), Some(Some(value))) => format!("get('{key}') -> '{value}'"),
            (KvOp::Get(key), _) => format!("get('{key}') -> ?"),
            (KvOp::Put(key, value), _) => format!("put('{key}', '{value}')"),
            (KvOp::Append(key, value), _) => format!("append('{key}', '{value}')"),
        }
    }
}

/// The same store as one object, unpartitioned (porcupine's `kvNoPartitionModel`):
/// the state maps every key to its value. Much slower than [`KvStore`]; it exists to
/// measure the search without P-compositionality.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::SequentialModel;
/// use pipecheck::linearizability::foreign::kv::{KvMap, KvOp};
///
/// let state = KvMap.step(&KvMap.init(), &KvOp::Put("k".into(), "v".into()), &None).unwrap();
/// assert!(KvMap.step(&state, &KvOp::Get("other".into()), &Some(String::new())).is_some());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct KvMap;

impl SequentialModel for KvMap {
    type State = std::collections::BTreeMap<String, String>;
    type Input = KvOp;
    type Output = Option<String>;

    fn init(&self) -> Self::State {
        Self::State::new()
    }

    fn step(&self, state: &Self::State, input: &KvOp, output: &Option<String>) -> Option<Self::State> {
        let value = state.get(input.key()).map_or("", String::as_str);
        let next = KvStore.step(&value.to_owned(), input, output)?;
        if matches!(input, KvOp::Get(_)) {
            return Some(state.clone());
        }
        let mut state = state.clone();
        state.insert(input.key().to_owned(), next);
        Some(state)
    }

    fn expected(&self, state: &Self::State, input: &KvOp) -> Option<Option<String>> {
        Some(matches!(input, KvOp::Get(_)).then(|| state.get(input.key()).cloned().unwrap_or_default()))
    }

    fn state_heap_bytes(&self, state: &Self::State) -> usize {
        // A B-tree node per few entries, plus the strings.
        state.iter().map(|(key, value)| key.capacity() + value.capacity() + 64).sum()
    }

    fn describe(&self, input: &KvOp, output: Option<&Option<String>>) -> String {
        KvStore.describe(input, output)
    }
}

/// The quoted string after `field` in `line` (`None` for `nil` or absent).
fn quoted<'l>(line: &'l str, field: &str) -> Option<&'l str> {
    let rest = &line[line.find(field)? + field.len()..];
    let rest = rest.strip_prefix('"')?;
    // Values contain no quotes in this format; the closing quote ends the field.
    Some(&rest[..rest.find('"')?])
}

/// Parses a log in the kv format; other lines are skipped. Stamps are line numbers; an
/// operation without a response is pending and may have taken effect.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::foreign::kv::{KvStore, parse};
/// use pipecheck::linearizability::{Budget, check};
///
/// let log = r#"{:process 0, :type :invoke, :f :put, :key "a", :value "x"}
/// {:process 0, :type :ok, :f :put, :key "a", :value "x"}
/// {:process 1, :type :invoke, :f :get, :key "a", :value nil}
/// {:process 1, :type :ok, :f :get, :key "a", :value ""}"#;
/// let history = parse(log).unwrap();
/// assert!(!check(&KvStore, &history, Budget::default()).unwrap().is_linearizable());
/// ```
///
/// # Errors
///
/// A [`ParseError`] for an operation line that does not parse, or a response without
/// its invocation.
pub fn parse(log: &str) -> Result<History<KvOp, Option<String>>, ParseError> {
    let mut history = History::new();
    let mut in_flight = HashMap::new();
    for (number, line) in log.lines().enumerate() {
        let error = |reason| ParseError { line: number + 1, reason };
        let Some(process) = line.split(":process ").nth(1) else { continue };
        let process: usize = process
            .split(',')
            .next()
            .and_then(|text| text.trim().parse().ok())
            .ok_or(error("process is not a number"))?;
        let kind = if line.contains(":type :invoke") {
            true
        } else if line.contains(":type :ok") {
            false
        } else {
            continue;
        };
        let key = quoted(line, ":key ").ok_or(error("no key"))?.to_owned();
        let value = quoted(line, ":value ").map(str::to_owned);
        let stamp = number as u64;
        if kind {
            let input = if line.contains(":f :get") {
                KvOp::Get(key)
            } else if line.contains(":f :put") {
                KvOp::Put(key, value.ok_or(error("put without value"))?)
            } else if line.contains(":f :append") {
                KvOp::Append(key, value.ok_or(error("append without value"))?)
            } else {
                return Err(error("unknown operation"));
            };
            let id = history.push(Operation {
                thread: process,
                input,
                output: None,
                invoked: stamp,
                responded: None,
            });
            in_flight.insert(process, id);
        } else {
            let id = in_flight.remove(&process).ok_or(error("response without invocation"))?;
            let get = matches!(history.get(id).input, KvOp::Get(_));
            let op = history.op_mut(id);
            op.output = Some(if get { Some(value.unwrap_or_default()) } else { None });
            op.responded = Some(stamp);
        }
    }
    for id in in_flight.into_values() {
        // Porcupine's reading: a put or append that never returned may have landed.
        if !matches!(history.get(id).input, KvOp::Get(_)) {
            history.op_mut(id).output = Some(None);
            history.set_pending_policy(id, crate::linearizability::PendingPolicy::MayHaveTakenEffect);
        }
    }
    Ok(history)
}
