//! Simulated stores that write Jepsen-style logs with known verdicts: a register in
//! the etcd format ([`register_log`]) and a key-value store in the kv format
//! ([`kv_log`]).
//!
//! Clients issue random operations; each takes effect at one tick strictly between its
//! invocation and its response, so the log is linearizable by construction (the order
//! of effects is a linearization). Register operations may time out (`:info`): half of
//! those never take effect. With `fault`, the run is quiesced halfway and one anomaly
//! is injected that no linearization explains whatever the timed-out operations did:
//! an acknowledged write followed by a read of the value before it (register), or an
//! acknowledged append the next get does not see (key-value store).

use std::collections::HashSet;

/// A small deterministic generator (SplitMix64): runs are reproducible from a seed.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A simulated object: random operations, their effect, and their log lines.
trait Store {
    type Op: Clone;
    type Out: Clone;
    fn random(&mut self, rng: &mut Rng) -> Self::Op;
    /// Marks `op` as one whose outcome the client will not learn.
    fn timed_out(&mut self, op: &Self::Op);
    fn apply(&mut self, op: &Self::Op) -> Self::Out;
    fn invoke_line(&self, process: usize, op: &Self::Op) -> String;
    fn return_line(&self, process: usize, op: &Self::Op, out: Option<&Self::Out>) -> String;
    /// The injected anomaly's lines, run by two idle processes.
    fn fault(&mut self, first: usize, second: usize) -> Vec<String>;
}

/// An operation in flight.
struct Flight<Op, Out> {
    client: usize,
    op: Op,
    effect_at: u64,
    return_at: u64,
    timed_out: bool,
    applies: bool,
    out: Option<Out>,
}

/// Runs `clients` clients for `ops` operations (percent of them timing out) and
/// returns the log.
fn simulate<S: Store>(
    store: &mut S,
    seed: u64,
    clients: usize,
    ops: usize,
    timeouts: u64,
    fault: bool,
) -> String {
    let mut rng = Rng(seed);
    let mut process: Vec<usize> = (0..clients).collect();
    let mut busy = vec![false; clients];
    let mut flights: Vec<Flight<S::Op, S::Out>> = Vec::new();
    let mut lines = Vec::new();
    let (mut issued, mut faulted, mut tick) = (0, !fault, 0u64);
    while issued < ops || !flights.is_empty() {
        tick += 1;
        for flight in flights.iter_mut().filter(|flight| flight.effect_at == tick && flight.applies) {
            flight.out = Some(store.apply(&flight.op));
        }
        let (done, still): (Vec<_>, Vec<_>) =
            flights.into_iter().partition(|flight| flight.return_at == tick);
        flights = still;
        for flight in done {
            let out = if flight.timed_out { None } else { flight.out.as_ref() };
            lines.push(store.return_line(process[flight.client], &flight.op, out));
            busy[flight.client] = false;
            if flight.timed_out {
                // Jepsen retires a process whose operation is indeterminate.
                process[flight.client] += clients;
            }
        }
        if !faulted && issued >= ops / 2 {
            if flights.is_empty() {
                lines.extend(store.fault(process[0], process[1 % clients]));
                faulted = true;
            }
            continue;
        }
        for client in 0..clients {
            if busy[client] || issued >= ops || !rng.chance(50) {
                continue;
            }
            let op = store.random(&mut rng);
            lines.push(store.invoke_line(process[client], &op));
            let timed_out = rng.chance(timeouts);
            if timed_out {
                store.timed_out(&op);
            }
            let effect_at = tick + 1 + rng.below(3);
            let applies = !timed_out || rng.chance(50);
            let return_at = effect_at + rng.below(3);
            flights.push(Flight { client, op, effect_at, return_at, timed_out, applies, out: None });
            busy[client] = true;
            issued += 1;
        }
    }
    let mut log = lines.join("\n");
    log.push('\n');
    log
}

/// The register: values 0–4, read, write and compare-and-set.
#[derive(Default)]
struct Register {
    value: Option<i64>,
    /// Values a timed-out operation may write at any later time.
    maybe_written: HashSet<i64>,
}

/// A register operation: read, write, or compare-and-set.
#[derive(Clone, Copy)]
enum RegisterOp {
    Read,
    Write(i64),
    Cas(i64, i64),
}

impl Store for Register {
    type Op = RegisterOp;
    type Out = Option<i64>;

    fn random(&mut self, rng: &mut Rng) -> RegisterOp {
        match rng.below(3) {
            0 => RegisterOp::Read,
            1 => RegisterOp::Write(rng.below(5) as i64),
            _ => RegisterOp::Cas(rng.below(5) as i64, rng.below(5) as i64),
        }
    }

    fn timed_out(&mut self, op: &RegisterOp) {
        if let RegisterOp::Write(value) | RegisterOp::Cas(_, value) = op {
            self.maybe_written.insert(*value);
        }
    }

    /// The value read, or for a compare-and-set `Some(1)` if it swapped.
    fn apply(&mut self, op: &RegisterOp) -> Option<i64> {
        match *op {
            RegisterOp::Read => self.value,
            RegisterOp::Write(value) => {
                self.value = Some(value);
                None
            }
            RegisterOp::Cas(from, to) => {
                let swapped = self.value == Some(from);
                if swapped {
                    self.value = Some(to);
                }
                swapped.then_some(1)
            }
        }
    }

    fn invoke_line(&self, process: usize, op: &RegisterOp) -> String {
        let (f, value) = match *op {
            RegisterOp::Read => (":read", "nil".to_owned()),
            RegisterOp::Write(value) => (":write", value.to_string()),
            RegisterOp::Cas(from, to) => (":cas", format!("[{from} {to}]")),
        };
        format!("INFO  jepsen.util - {process}\t:invoke\t{f}\t{value}")
    }

    fn return_line(&self, process: usize, op: &RegisterOp, out: Option<&Option<i64>>) -> String {
        let (kind, f, value) = match (*op, out) {
            (RegisterOp::Read, None) => (":fail", ":read", ":timed-out".to_owned()),
            (RegisterOp::Write(_), None) => (":info", ":write", ":timed-out".to_owned()),
            (RegisterOp::Cas(..), None) => (":info", ":cas", ":timed-out".to_owned()),
            (RegisterOp::Read, Some(seen)) => {
                (":ok", ":read", seen.map_or("nil".to_owned(), |v| v.to_string()))
            }
            (RegisterOp::Write(value), Some(_)) => (":ok", ":write", value.to_string()),
            (RegisterOp::Cas(from, to), Some(swapped)) => {
                (if swapped.is_some() { ":ok" } else { ":fail" }, ":cas", format!("[{from} {to}]"))
            }
        };
        format!("INFO  jepsen.util - {process}\t{kind}\t{f}\t{value}")
    }

    fn fault(&mut self, first: usize, second: usize) -> Vec<String> {
        let before = self.value;
        // A value nobody else writes, then a stale read no timed-out write explains.
        let written = 100;
        self.value = Some(written);
        let stale = match before {
            Some(value) if self.maybe_written.contains(&value) => "999".to_owned(),
            Some(value) => value.to_string(),
            None => "nil".to_owned(),
        };
        vec![
            format!("INFO  jepsen.util - {first}\t:invoke\t:write\t{written}"),
            format!("INFO  jepsen.util - {first}\t:ok\t:write\t{written}"),
            format!("INFO  jepsen.util - {second}\t:invoke\t:read\tnil"),
            format!("INFO  jepsen.util - {second}\t:ok\t:read\t{stale}"),
        ]
    }
}

/// A Jepsen etcd-style log of a simulated register: `clients` clients, `ops`
/// operations, about 5% timing out; with `fault`, a stale read after an acknowledged
/// write (not linearizable), else linearizable.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::foreign::{etcd, simulate};
/// use pipecheck::linearizability::{Budget, check};
///
/// let good = etcd::parse(&simulate::register_log(1, 5, 200, false)).unwrap();
/// assert!(check(&etcd::EtcdRegister, &good, Budget::default()).unwrap().is_linearizable());
/// let bad = etcd::parse(&simulate::register_log(1, 5, 200, true)).unwrap();
/// assert!(!check(&etcd::EtcdRegister, &bad, Budget::default()).unwrap().is_linearizable());
/// ```
pub fn register_log(seed: u64, clients: usize, ops: usize, fault: bool) -> String {
    simulate(&mut Register::default(), seed, clients.max(2), ops, 5, fault)
}

/// The key-value store: `keys` keys, get, put and append.
struct KeyValues {
    keys: u64,
    values: Vec<String>,
    next_token: u64,
}

/// A key-value operation: get, put, or append, on a key index.
#[derive(Clone)]
enum KvOp {
    Get(usize),
    Put(usize, String),
    Append(usize, String),
}

impl Store for KeyValues {
    type Op = KvOp;
    type Out = String;

    fn random(&mut self, rng: &mut Rng) -> KvOp {
        let key = rng.below(self.keys) as usize;
        self.next_token += 1;
        let token = format!("x{} ", self.next_token);
        match rng.below(10) {
            0..=4 => KvOp::Get(key),
            5 => KvOp::Put(key, token),
            _ => KvOp::Append(key, token),
        }
    }

    fn timed_out(&mut self, _: &KvOp) {}

    fn apply(&mut self, op: &KvOp) -> String {
        match op {
            KvOp::Get(key) => self.values[*key].clone(),
            KvOp::Put(key, value) => {
                self.values[*key] = value.clone();
                String::new()
            }
            KvOp::Append(key, value) => {
                self.values[*key].push_str(value);
                String::new()
            }
        }
    }

    fn invoke_line(&self, process: usize, op: &KvOp) -> String {
        let (f, key, value) = match op {
            KvOp::Get(key) => (":get", key, "nil".to_owned()),
            KvOp::Put(key, value) => (":put", key, format!("\"{value}\"")),
            KvOp::Append(key, value) => (":append", key, format!("\"{value}\"")),
        };
        format!("{{:process {process}, :type :invoke, :f {f}, :key \"{key}\", :value {value}}}")
    }

    fn return_line(&self, process: usize, op: &KvOp, out: Option<&String>) -> String {
        let (f, key, value) = match op {
            KvOp::Get(key) => (":get", key, out.cloned().unwrap_or_default()),
            KvOp::Put(key, value) => (":put", key, value.clone()),
            KvOp::Append(key, value) => (":append", key, value.clone()),
        };
        format!("{{:process {process}, :type :ok, :f {f}, :key \"{key}\", :value \"{value}\"}}")
    }

    fn fault(&mut self, first: usize, second: usize) -> Vec<String> {
        // An acknowledged append that is lost: the next get does not end with it.
        let lost = KvOp::Append(0, "lost ".to_owned());
        let get = KvOp::Get(0);
        let seen = self.values[0].clone();
        vec![
            self.invoke_line(first, &lost),
            self.return_line(first, &lost, None),
            self.invoke_line(second, &get),
            self.return_line(second, &get, Some(&seen)),
        ]
    }
}

/// A log in porcupine's kv format of a simulated store: `clients` clients, `keys`
/// keys, `ops` operations; with `fault`, a lost append (not linearizable), else
/// linearizable.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::foreign::{kv, simulate};
/// use pipecheck::linearizability::{Budget, check};
///
/// let bad = kv::parse(&simulate::kv_log(3, 10, 4, 400, true)).unwrap();
/// assert!(!check(&kv::KvStore, &bad, Budget::default()).unwrap().is_linearizable());
/// ```
pub fn kv_log(seed: u64, clients: usize, keys: usize, ops: usize, fault: bool) -> String {
    let keys = keys.max(1);
    let mut store = KeyValues { keys: keys as u64, values: vec![String::new(); keys], next_token: 0 };
    simulate(&mut store, seed, clients.max(2), ops, 0, fault)
}
