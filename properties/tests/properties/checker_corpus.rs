//! The corpus of histories with known verdicts: the checker gives each its verdict, and
//! each planted checker bug flips some of them (the campaign's checker section rests on
//! both).

use pipecheck::linearizability::corpus::{BUILTIN_FILE, Corpus, CorpusResult, Expected, Found};
use pipecheck::linearizability::faults;

fn flipped(results: &[CorpusResult]) -> Vec<&str> {
    results.iter().filter(|result| result.flipped()).map(|result| result.name.as_str()).collect()
}

#[test]
fn every_builtin_entry_gets_its_verdict() {
    let corpus = Corpus::builtin().unwrap_or_else(|e| panic!("{e}"));
    let results = corpus.check();
    assert!(results.len() >= 40, "{} entries", results.len());
    assert_eq!(flipped(&results), Vec::<&str>::new());
    for expected in [Expected::Linearizable, Expected::NonLinearizable] {
        assert!(results.iter().any(|r| r.expected == expected), "no {expected} entry");
    }
}

#[test]
fn each_planted_checker_bug_flips_the_entries_it_should() {
    let corpus = Corpus::builtin().unwrap_or_else(|e| panic!("{e}"));
    let reorder = faults::CheckerAcceptsReorder.activate(|| corpus.check());
    let flips = flipped(&reorder);
    eprintln!("CheckerAcceptsReorder flips {} entries: {flips:?}", flips.len());
    for name in ["sequential-stale-read", "porcupine-register-bad", "causal-ordered-stale-read"] {
        assert!(flips.contains(&name), "CheckerAcceptsReorder left `{name}` alone: {flips:?}");
    }
    // Program order and impossible values stay refused: only precedence between threads is lost.
    for name in ["program-order-stale-read", "read-of-a-value-never-written"] {
        assert!(!flips.contains(&name), "CheckerAcceptsReorder flipped `{name}`");
    }
    assert!(reorder.iter().filter(|r| r.flipped()).all(|r| r.expected == Expected::NonLinearizable));

    let pending = faults::CheckerNeverPlacesPending.activate(|| corpus.check());
    let flips = flipped(&pending);
    eprintln!("CheckerNeverPlacesPending flips {} entries: {flips:?}", flips.len());
    for name in ["pending-write-observed", "indeterminate-write-observed", "queue-pending-enqueue-observed"] {
        assert!(flips.contains(&name), "CheckerNeverPlacesPending left `{name}` alone: {flips:?}");
    }
    for name in ["pending-write-not-observed", "pending-read-ignored"] {
        assert!(!flips.contains(&name), "CheckerNeverPlacesPending flipped `{name}`");
    }
    assert!(
        pending.iter().filter(|r| r.flipped()).all(|r| r.found == Found::Verdict(Expected::NonLinearizable))
    );
    assert_eq!(faults::ALL.len(), 2);
}

#[test]
fn a_corrupt_entry_is_an_error_naming_its_file_and_line() {
    let text = "# comment\n\nok  linearizable  register | 0 0..10 write 1 -> ok\nbad  maybe  register | 0 0..10 read -> 1\n";
    let error = Corpus::parse(BUILTIN_FILE, text).unwrap_err();
    assert_eq!((error.file.as_str(), error.line), (BUILTIN_FILE, 4));
    assert_eq!(
        error.to_string(),
        format!("{BUILTIN_FILE}:4: unknown verdict `maybe` (linearizable, non-linearizable)")
    );
    let cases = [
        ("a linearizable register | 0 0..10 read", "`0 0..10 read` needs `-> a number`"),
        ("a linearizable register | 0 0.. write 1 -> ok", "did not return"),
        ("a linearizable register | 0 0..10 enq 1 -> ok", "`enq` is no operation of the register model"),
        ("a linearizable register | 0 0..10 read -> ok", "`read` returns a number, not `ok`"),
        ("a linearizable register | 0 0..10 write 1 -> ok | #0 < #1", "need `causal`"),
        ("a linearizable register causal | 0 0..10 write 1 -> ok | #0 < #1", "the line has 1 operations"),
        ("a linearizable register | 0 10..0 write 1 -> ok", "malformed history"),
        (
            "a linearizable register | 0 0..10 write 1 -> ok\na linearizable register | 0 0..10 write 1 -> ok",
            "already",
        ),
    ];
    for (text, wanted) in cases {
        let error = Corpus::parse("x.txt", text).unwrap_err();
        assert!(error.to_string().contains(wanted), "{text:?}: {error}");
    }
}
