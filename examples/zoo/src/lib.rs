//! # zoo — concurrency bugs that shipped in public Rust crates
//!
//! Each module ports one structure from a published crate onto pipecheck's sync facade
//! (`pipecheck::{sync, cell, thread}`), reduced to what its bug needs: the code is the
//! fixed version, and the bug as it shipped is a planted fault (`planted_faults!`) that
//! reproduces the original line. Each module's `target()` declares the scenarios that
//! catch its bugs and the invariant each breaks. See `README.md` next to this crate for
//! the sources, versions, licences and the table of what catches what.

pub mod parking_lot_rwlock;
pub mod spin_rwlock;
pub mod thread_local_iter;
pub mod thread_local_table;
pub mod tokio_notify;
pub mod tokio_oneshot;

/// Every port as a pipecheck target: what the campaign binary checks.
pub fn targets() -> Vec<pipecheck::Target> {
    vec![
        tokio_oneshot::target(),
        tokio_notify::target(),
        thread_local_iter::target(),
        thread_local_table::target(),
        spin_rwlock::target(),
        parking_lot_rwlock::target(),
    ]
}
