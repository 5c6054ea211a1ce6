//! # parker — a one-shot event on a `SeqCst` handshake
//!
//! A one-shot event ([`event`]): the waiter announces itself with a `SeqCst` store
//! and then loads the event's flag with `SeqCst`, parking while it is unset; the setter
//! stores the flag with `SeqCst` and then loads the announcement with `SeqCst`,
//! unparking the waiter if it announced itself. C11's single total order over `SeqCst`
//! accesses makes at least one side see the other's store (the store-buffering, or
//! Dekker, shape), so no wakeup is lost and no lock is needed.
//!
//! loom alone explores `SeqCst` loads and stores as `Acquire` and `Release`
//! (tokio-rs/loom#180), under which both loads may miss: it would report this correct
//! event as a lost wakeup. pipecheck's facade models `SeqCst` accesses as C11 does
//! (`docs/engines.md`), so the event is green under loom, and the two weak-memory bugs
//! planted in it ([`check`]) are red. See `README.md` next to this crate.

mod event;

pub mod check;

pub use event::{Setter, Waiter, event};
