//! Trace files, without shuttle: the committed corpus parses and covers every fault,
//! and every kind of bad file gets an error naming the file (and line).

use std::path::{Path, PathBuf};

use pipecheck::trace::location;
use pipecheck::trace::schedule::{Schedule, Step};
use pipecheck::trace::trace_file::{Header, RERECORD_COMMAND, SHUTTLE_VERSION, Size, Trace, TraceError};
use pipecheck_pipe::fault;

/// The committed corpus, `traces/corpus/` (never the traces runs save under `target/`).
fn corpus() -> Vec<PathBuf> {
    location::traces_in(&location::corpus_dir())
}

fn sample() -> String {
    let schedule = Schedule { seed: 42, steps: vec![Step::Task(0), Step::Task(1), Step::Task(0)] };
    let size = Size { preemptions: 1, steps: 3 };
    let trace = Trace::new(
        "pipe",
        "large-stream",
        "random",
        7,
        1,
        Some("LifoPool"),
        "fifo-pool",
        size,
        size,
        schedule,
    );
    trace.to_text(Path::new("traces/sample.trace"))
}

fn parse(text: &str) -> Result<Trace, TraceError> {
    Trace::parse(text, Path::new("traces/bad.trace"), &pipecheck_models::builtin::all())
}

fn line_of(text: &str, prefix: &str) -> usize {
    text.lines().position(|l| l.starts_with(prefix)).expect("the line exists") + 1
}

#[test]
fn a_written_trace_parses_back() {
    let text = sample();
    let trace = parse(&text).expect("parses");
    assert_eq!(trace.fault.as_deref(), Some("LifoPool"));
    assert_eq!(trace.target, "pipe");
    assert_eq!(trace.schedule.len(), 3);
    assert_eq!(trace.line_of("invariant"), Some(line_of(&text, "# invariant")));
}

#[test]
fn every_committed_trace_parses() {
    for path in corpus() {
        if let Err(e) = Trace::load(&path, &pipecheck_models::builtin::all()) {
            panic!("{e}");
        }
    }
}

#[test]
fn the_corpus_holds_a_trace_for_every_fault_a_scenario_declares() {
    let traces: Vec<Trace> =
        corpus().iter().map(|p| Trace::load(p, &pipecheck_models::builtin::all()).expect("parses")).collect();
    for &fault in fault::ALL {
        let declared = !fault.scenarios().is_empty();
        if !declared {
            eprintln!("{fault}: no scenario declares it, so no trace is expected");
            continue;
        }
        if fault.needs_weak_memory() {
            eprintln!("{fault}: only loom's weak memory model shows it, so no shuttle trace is expected");
            continue;
        }
        let trace = traces.iter().find(|t| t.fault.as_deref() == Some(fault.name()));
        let trace = trace
            .unwrap_or_else(|| panic!("traces/corpus/ has no trace for {fault}: run the `corpus` command"));
        // Usually the fault's own invariant; a fault can break another one first (a
        // returned write head is reused and overwritten: byte-exact).
        assert!(
            pipecheck_models::invariants()
                .iter()
                .map(|(id, _)| id.name())
                .collect::<Vec<_>>()
                .contains(&trace.invariant.as_str()),
            "{fault}'s trace breaks an invariant"
        );
        assert!(trace.minimized <= trace.original, "{fault}'s trace is minimized");
    }
}

#[test]
fn a_file_that_is_not_a_trace_is_refused_at_line_1() {
    let e = parse("hello\n").unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.to_string().starts_with("traces/bad.trace:1: not a pipecheck trace"), "{e}");
}

#[test]
fn a_corrupt_header_line_names_file_and_line() {
    let text = sample().replace("# seed: 7", "# seed 7");
    let e = parse(&text).unwrap_err();
    let line = line_of(&text, "# seed 7");
    assert_eq!(
        e.to_string(),
        format!("traces/bad.trace:{line}: malformed header line `# seed 7`: expected `# key: value`")
    );
}

#[test]
fn a_bad_number_names_file_and_line() {
    let text = sample().replace("# seed: 7", "# seed: seven");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, Some(line_of(&text, "# seed")));
    assert!(e.message.contains("`seed` must be a whole number"), "{e}");
}

#[test]
fn an_unknown_fault_names_file_line_and_the_known_faults() {
    let text = sample().replace("# fault: LifoPool", "# fault: StackPool");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, Some(line_of(&text, "# fault")));
    assert!(e.message.contains("unknown fault `StackPool`") && e.message.contains("LifoPool"), "{e}");
}

#[test]
fn an_unknown_target_names_file_line_and_the_known_targets() {
    let text = sample().replace("# target: pipe", "# target: counter");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, Some(line_of(&text, "# target")));
    assert!(e.message.contains("unknown target `counter`") && e.message.contains("pipe, primitives"), "{e}");
    assert!(e.to_string().starts_with(&format!("traces/bad.trace:{}:", line_of(&text, "# target"))), "{e}");
}

#[test]
fn an_unknown_scenario_or_invariant_names_the_line() {
    let text = sample().replace("# scenario: large-stream", "# scenario: huge-stream");
    assert_eq!(parse(&text).unwrap_err().line, Some(line_of(&text, "# scenario")));
    let text = sample().replace("# invariant: fifo-pool", "# invariant: lifo-pool");
    assert_eq!(parse(&text).unwrap_err().line, Some(line_of(&text, "# invariant")));
}

#[test]
fn a_trace_from_another_shuttle_version_is_refused() {
    let text = sample().replace(&format!("# shuttle: {SHUTTLE_VERSION}"), "# shuttle: 0.8.1");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, Some(line_of(&text, "# shuttle")));
    assert!(e.message.contains("recorded with shuttle 0.8.1") && e.message.contains(RERECORD_COMMAND), "{e}");
}

/// What `corpus --rerecord` reads of a trace it must record again: the header, with
/// the same target-aware checks, whatever state the schedule is in.
#[test]
fn the_header_alone_reads_a_trace_whose_schedule_cannot_be_used() {
    let path = Path::new("traces/bad.trace");
    let other_shuttle = sample().replace(&format!("# shuttle: {SHUTTLE_VERSION}"), "# shuttle: 0.8.1");
    let no_schedule: String =
        sample().lines().filter(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    let not_hex = format!("{no_schedule}zz\n");
    for text in [other_shuttle, no_schedule, not_hex] {
        assert!(parse(&text).is_err(), "the whole trace is refused:\n{text}");
        let header =
            Header::parse(&text, path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (header.target.as_str(), header.scenario.as_str(), header.fault.as_deref(), header.seed),
            ("pipe", "large-stream", Some("LifoPool"), 7)
        );
        assert_eq!(header.line_of("fault"), Some(line_of(&text, "# fault")));
    }
    // A trace from before targets existed belongs to the target that has its scenario.
    let untargeted = sample().replace("# target: pipe\n", "");
    assert_eq!(
        Header::parse(&untargeted, path, &pipecheck_models::builtin::all()).expect("parses").target,
        "pipe"
    );
    // The header's own checks still name file and line.
    let text = sample().replace("# target: pipe", "# target: counter");
    let e = Header::parse(&text, path, &pipecheck_models::builtin::all()).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "traces/bad.trace:{}: unknown target `counter`",
            line_of(&text, "# target")
        )),
        "{e}"
    );
    let text = sample().replace("# fault: LifoPool", "# fault: MutexDoubleAdmit");
    let e = Header::parse(&text, path, &pipecheck_models::builtin::all()).unwrap_err();
    assert_eq!(e.line, Some(line_of(&text, "# fault")), "a fault of another target: {e}");
}

#[test]
fn a_missing_header_line_is_named() {
    let text: String =
        sample().lines().filter(|l| !l.starts_with("# invariant")).map(|l| format!("{l}\n")).collect();
    assert_eq!(parse(&text).unwrap_err().to_string(), "traces/bad.trace: the header has no `invariant` line");
}

#[test]
fn a_truncated_schedule_is_refused_at_its_line() {
    let long = Schedule { seed: 1, steps: vec![Step::Task(2); 400] };
    let size = Size { preemptions: 0, steps: 400 };
    let trace = Trace::new("pipe", "large-stream", "random", 7, 1, None, "fifo-pool", size, size, long);
    let text = trace.to_text(Path::new("x"));
    let cut = &text[..text.len() - 40];
    let e = parse(cut).unwrap_err();
    assert_eq!(e.line, Some(line_of(&text, "91")));
    assert!(e.message.contains("truncated"), "{e}");
}

#[test]
fn a_schedule_shorter_than_its_header_says_is_refused() {
    let text = sample().replace("# minimized: 3 steps", "# minimized: 30 steps");
    assert!(parse(&text).unwrap_err().message.contains("the header says 30"));
}

#[test]
fn a_non_hex_schedule_line_names_line_and_column() {
    let mut text = sample();
    text.push_str("91zz\n");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, Some(text.lines().count()));
    assert!(e.message.contains("`z` at column 3"), "{e}");
}

#[test]
fn a_missing_file_is_named() {
    let e = Trace::load(Path::new("traces/no-such.trace"), &pipecheck_models::builtin::all()).unwrap_err();
    assert!(e.to_string().starts_with("traces/no-such.trace: cannot read"), "{e}");
}

#[test]
fn the_recorded_shuttle_version_is_the_one_in_cargo_lock() {
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
        .expect("Cargo.lock");
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"shuttle\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"'))
        .expect("shuttle is in Cargo.lock");
    assert_eq!(
        version, SHUTTLE_VERSION,
        "shuttle was upgraded: bump SHUTTLE_VERSION and record traces/corpus/ again"
    );
}
