//! **balanced-pool**: every buffer rented from a partitioned pool comes back, stolen or
//! not, and no partition loses or gains a buffer behind the log's back.
//!
//! The pool reports every change to a partition under that partition's lock, with the
//! count it left there; the log's own count must agree at every step, and by the end
//! of a run every rent has a return (or a discard).

use std::collections::HashMap;

use pipecheck::InvariantId;
use pipecheck_pipe::{PrimitiveEvent, PrimitiveId};

use pipecheck::Invariant;
use crate::Observation;

/// Counts each pool's buffers per partition and out with renters.
#[derive(Debug, Default)]
pub struct BalancedPool {
    /// Buffers in each (pool, partition), as the log accounts for them.
    pooled: HashMap<(PrimitiveId, usize), usize>,
    /// Buffers out with renters, per pool.
    outstanding: HashMap<PrimitiveId, usize>,
}

impl BalancedPool {
    fn expect(
        &self,
        pool: PrimitiveId,
        partition: usize,
        reported: usize,
        after: &str,
    ) -> Result<(), String> {
        let counted = self.pooled.get(&(pool, partition)).copied().unwrap_or(0);
        if counted == reported {
            return Ok(());
        }
        Err(format!(
            "partition {partition} of pool {pool} holds {reported} buffers after {after}, but the rents and returns \
             logged account for {counted}: a buffer was {} behind the pool's lock",
            if reported < counted { "lost" } else { "made up" }
        ))
    }
}

impl Invariant<Observation> for BalancedPool {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::BALANCED_POOL
    }

    fn statement(&self) -> &'static str {
        "every buffer rented from a partitioned pool is returned, stolen or not"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Primitive(event) = observation else { return Ok(()) };
        match *event {
            PrimitiveEvent::PoolRented { pool, partition, pooled } => {
                *self.outstanding.entry(pool).or_default() += 1;
                if let Some(partition) = partition {
                    let count = self.pooled.entry((pool, partition)).or_default();
                    *count = count.saturating_sub(1);
                    return self.expect(pool, partition, pooled, "a rent");
                }
            }
            PrimitiveEvent::PoolMissed { pool, partition } => {
                return self.expect(pool, partition, 0, "a renter found it empty");
            }
            PrimitiveEvent::PoolReturned { pool, partition, pooled } => {
                *self.pooled.entry((pool, partition)).or_default() += 1;
                self.give_back(pool)?;
                return self.expect(pool, partition, pooled, "a return");
            }
            PrimitiveEvent::PoolDiscarded { pool, .. } => self.give_back(pool)?,
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        match self.outstanding.iter().find(|(_, n)| **n > 0) {
            Some((pool, n)) => Err(format!("{n} buffers rented from pool {pool} were never returned")),
            None => Ok(()),
        }
    }
}

impl BalancedPool {
    fn give_back(&mut self, pool: PrimitiveId) -> Result<(), String> {
        let out = self.outstanding.entry(pool).or_default();
        match out.checked_sub(1) {
            Some(n) => {
                *out = n;
                Ok(())
            }
            None => Err(format!("pool {pool} got back a buffer nobody had rented from it")),
        }
    }
}
