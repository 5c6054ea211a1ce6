//! The litmus suite (`suite.rs`) under loom, through the facade and through loom's own
//! atomics, and under shuttle through the facade; and the store-buffering handshake
//! written out on the public facade.
//!
//! `cargo test -p pipecheck --features loom --test litmus` (and `--features shuttle`).
//! The table in `docs/engines.md` is what `cargo run -p pipecheck --example litmus
//! --features loom` (and `--features shuttle`) prints; a test here fails when it is not.
#![cfg(any(feature = "loom", feature = "shuttle"))]

#[allow(dead_code, unreachable_pub)]
mod suite;

/// The documentation page that holds the tables.
fn engines_doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/engines.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[cfg(feature = "loom")]
mod loom_engine {
    use std::collections::BTreeSet;
    use std::sync::{Arc as StdArc, Mutex as StdMutex};

    use pipecheck::sync::Arc;
    use pipecheck::sync::atomic::{AtomicBool, Ordering, fence};
    use pipecheck::thread;

    use super::suite::{self, Facade, LoomAlone, SUITE};

    /// Store buffering on the public facade: each thread stores its own flag with
    /// `store`, puts `between` (a fence) after it if any, then loads the other's flag
    /// with `load`. Returns every `(r1, r2)` loom reaches.
    fn store_buffering(store: Ordering, between: Option<Ordering>, load: Ordering) -> BTreeSet<(bool, bool)> {
        let seen = StdArc::new(StdMutex::new(BTreeSet::new()));
        let record = seen.clone();
        loom::model(move || {
            let flags = Arc::new((AtomicBool::new(false), AtomicBool::new(false)));
            let other = flags.clone();
            let handle = thread::spawn(move || {
                other.1.store(true, store);
                if let Some(order) = between {
                    fence(order);
                }
                other.0.load(load)
            });
            flags.0.store(true, store);
            if let Some(order) = between {
                fence(order);
            }
            let r1 = flags.1.load(load);
            let r2 = handle.join().unwrap();
            record.lock().unwrap().insert((r1, r2));
        });
        seen.lock().unwrap().clone()
    }

    /// Every outcome but both-0: each side may see or miss the other, never both miss.
    fn green() -> BTreeSet<(bool, bool)> {
        [(true, true), (true, false), (false, true)].into_iter().collect()
    }

    #[test]
    fn seqcst_store_then_seqcst_load_never_reads_both_zero() {
        assert_eq!(store_buffering(Ordering::SeqCst, None, Ordering::SeqCst), green());
    }

    #[test]
    fn relaxed_accesses_with_seqcst_fences_never_read_both_zero() {
        assert_eq!(store_buffering(Ordering::Relaxed, Some(Ordering::SeqCst), Ordering::Relaxed), green());
    }

    #[test]
    fn release_store_then_acquire_load_reads_both_zero() {
        let seen = store_buffering(Ordering::Release, None, Ordering::Acquire);
        assert!(seen.contains(&(false, false)), "loom must find the both-0 outcome C11 allows: {seen:?}");
    }

    #[test]
    fn seqcst_store_then_relaxed_load_reads_both_zero() {
        let seen = store_buffering(Ordering::SeqCst, None, Ordering::Relaxed);
        assert!(
            seen.contains(&(false, false)),
            "a SeqCst store does not order a later Relaxed load: {seen:?}"
        );
    }

    /// The gap the facade closes, shown on loom's own atomics (tokio-rs/loom#180):
    /// when this fails, loom models `SeqCst` accesses itself, and the facade's model
    /// (`pipecheck/sync/src/loom_seqcst.rs`) can go.
    #[test]
    fn loom_alone_reads_both_zero_with_seqcst_store_and_load() {
        let row =
            SUITE.iter().find(|l| l.shape == "SB" && l.orderings == "SeqCst store, SeqCst load").unwrap();
        let seen = suite::outcomes::<LoomAlone>(row, suite::loom_explore);
        assert!(seen.contains(row.outcome), "{seen:?}");
    }

    /// Every row through the facade: each outcome C11 forbids is never shown, each it
    /// allows is shown unless the row says why loom cannot show it.
    #[test]
    fn every_litmus_row_through_the_facade_agrees_with_c11() {
        let mut wrong = Vec::new();
        for litmus in SUITE {
            let seen = suite::outcomes::<Facade>(litmus, suite::loom_explore);
            assert!(seen.len() >= 2, "{} / {}: only {seen:?} explored", litmus.shape, litmus.orderings);
            let cell = suite::cell(
                litmus,
                seen.contains(litmus.outcome),
                litmus.facade_misses.or(litmus.loom_misses),
            );
            if !suite::agrees(&cell) {
                wrong.push(format!("{} / {}: {cell} ({seen:?})", litmus.shape, litmus.orderings));
            }
        }
        assert!(wrong.is_empty(), "rows that disagree with C11:\n{}", wrong.join("\n"));
    }

    /// The table in `docs/engines.md` is the one the example prints now.
    #[test]
    fn the_loom_litmus_table_in_the_docs_is_current() {
        let (table, _) = suite::loom_table();
        let doc = super::engines_doc();
        let recorded =
            suite::section(&doc, "litmus-loom").expect("docs/engines.md has a litmus-loom section");
        assert_eq!(
            recorded, table,
            "docs/engines.md is stale: paste the output of `cargo run -p pipecheck --example litmus --features loom`"
        );
    }
}

#[cfg(feature = "shuttle")]
mod shuttle_engine {
    use super::suite;

    /// shuttle never shows an outcome C11 forbids (nor, running sequentially consistent
    /// interleavings, a weak one), and the table in `docs/engines.md` is current.
    #[test]
    fn the_shuttle_litmus_table_agrees_with_c11_and_the_docs() {
        let (table, rows) = suite::shuttle_table();
        for (litmus, random, pct) in rows {
            assert!(
                suite::agrees(&random) && suite::agrees(&pct),
                "{} / {}: {random}, {pct}",
                litmus.shape,
                litmus.orderings
            );
        }
        let doc = super::engines_doc();
        let recorded =
            suite::section(&doc, "litmus-shuttle").expect("docs/engines.md has a litmus-shuttle section");
        assert_eq!(
            recorded, table,
            "docs/engines.md is stale: paste the output of `cargo run -p pipecheck --example litmus --features shuttle`"
        );
    }
}
