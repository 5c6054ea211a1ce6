//! **pool-size-class**: a buffer given back to a size-class buffer pool
//! (`DefaultBufferPool`, `LockedBufferPool`) goes into its own size class — the class
//! whose length is the buffer's — so every rent gets a buffer of its class's length, at
//! least the length asked for.
//!
//! The pool reports each return with the class it filed the buffer under
//! (`ClassReturned`) before filing it, and each rent with the class it served and the
//! buffer it handed out (`ClassRented`).

use pipecheck::InvariantId;
use pipecheck_pipe::PrimitiveEvent;

use pipecheck::Invariant;
use crate::Observation;

/// The invariant's id.
pub const POOL_SIZE_CLASS: InvariantId = InvariantId::new("pool-size-class");

/// Checks every rent and return of an observed size-class pool (it keeps no state: each
/// event carries what it is checked against).
#[derive(Debug, Default)]
pub struct PoolSizeClass;

impl Invariant<Observation> for PoolSizeClass {
    fn id(&self) -> InvariantId {
        POOL_SIZE_CLASS
    }

    fn statement(&self) -> &'static str {
        "a buffer given back to a size-class pool goes into its own size class, so a rent gets a buffer of \
         its class's length, at least the length asked for"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        match *observation {
            Observation::Primitive(PrimitiveEvent::ClassReturned { pool, len, class_len: Some(class_len) })
                if class_len != len =>
            {
                Err(format!(
                    "pool {pool} filed a {len}-byte buffer under the {class_len}-byte size class: a rent of that \
                     class would get it"
                ))
            }
            Observation::Primitive(PrimitiveEvent::ClassRented { pool, min_len, class_len, len })
                if len < min_len || class_len.is_some_and(|class_len| class_len != len) =>
            {
                Err(format!(
                    "pool {pool} handed out a {len}-byte buffer for a rent of {min_len} bytes from the {} class",
                    class_len.map_or("unpooled".to_string(), |c| format!("{c}-byte"))
                ))
            }
            _ => Ok(()),
        }
    }
}
