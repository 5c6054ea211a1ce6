//! A lock-free Treiber stack over a fixed arena of nodes, its head tagged against ABA.
//!
//! Treiber ("Systems programming: coping with parallelism", IBM RJ 5118, 1986): the stack
//! is a linked list whose head is swapped with compare-and-swap. Nodes come from a fixed
//! arena and go back to a second Treiber stack of free nodes, so no memory is ever
//! reclaimed and a node's `next` link is an index. Each head packs a node index with a
//! tag the swap increments, so that a head that went from node A to B and back to A
//! does not look unchanged to a swap that read it before (the ABA problem).
//!
//! Orderings: a push writes the value, then swaps its node in with `Release`; a pop
//! swaps the node out with `Acquire` (the value is then visible) and reads it, then
//! returns the node to the free stack with `Release`, which the next push that takes the
//! node acquires before it writes the value again. Links are atomics read `Relaxed`: a
//! pop may read the link of a node that is being reused, and then its swap fails.
//!
//! Everything comes from pipecheck's sync facade (`pipecheck`), so the
//! same code runs on std, under loom and under shuttle.

use std::mem::MaybeUninit;

use pipecheck::cell::UnsafeCell;
use pipecheck::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::stack_check::{PushRelaxed, RetryWithoutRelink, StalePop};

/// No node: the end of a list (links and heads hold node index + 1).
const NIL: usize = 0;

struct Node<T> {
    /// Written by the push that took the node from the free stack, read by the pop that
    /// took it off the stack.
    value: UnsafeCell<MaybeUninit<T>>,
    /// The node below, as index + 1 (or [`NIL`]).
    next: AtomicUsize,
}

/// A bounded lock-free stack of `Copy` values.
///
/// # Examples
///
/// ```
/// # #[cfg(not(any(feature = "loom", feature = "shuttle")))] {
/// use spsc_ring::stack::Stack;
///
/// let stack = Stack::new(1);
/// stack.push(1).unwrap();
/// assert_eq!(stack.push(2), Err(2)); // full
/// assert_eq!(stack.pop(), Some(1));
/// assert_eq!(stack.pop(), None);
/// # }
/// ```
pub struct Stack<T> {
    nodes: Box<[Node<T>]>,
    /// The top node (index + 1 in the low 32 bits) and the tag (high 32 bits).
    top: AtomicU64,
    /// The free stack's top, packed the same way.
    free: AtomicU64,
}

// SAFETY: values move between threads (`T: Send`); a node's value is accessed by one
// thread at a time: the one that took the node off the free stack (to write it) or off
// the stack (to read it), never through a shared `&T`.
unsafe impl<T: Send> Sync for Stack<T> {}

impl<T> std::fmt::Debug for Stack<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stack").field("capacity", &self.nodes.len()).finish_non_exhaustive()
    }
}

/// `head`'s node index + 1 (or [`NIL`]).
fn node(head: u64) -> usize {
    (head & u64::from(u32::MAX)) as usize
}

/// `head` pointing at `node` (index + 1), its tag incremented.
fn retag(head: u64, node: usize) -> u64 {
    let tag = (head >> 32).wrapping_add(1) & u64::from(u32::MAX);
    (tag << 32) | node as u64
}

impl<T: Copy> Stack<T> {
    /// An empty stack with room for `capacity` values.
    ///
    /// # Panics
    ///
    /// When `capacity` does not fit in 32 bits.
    pub fn new(capacity: usize) -> Stack<T> {
        assert!(capacity < u32::MAX as usize, "node indices are 32 bits");
        // Every node free, each linked to the next.
        let nodes = (0..capacity)
            .map(|i| Node {
                value: UnsafeCell::new(MaybeUninit::uninit()),
                next: AtomicUsize::new(if i + 1 < capacity { i + 2 } else { NIL }),
            })
            .collect();
        let first = if capacity > 0 { 1 } else { NIL };
        Stack { nodes, top: AtomicU64::new(0), free: AtomicU64::new(first as u64) }
    }

    /// Pushes `value`.
    ///
    /// # Errors
    ///
    /// `value` back when every node holds a value.
    pub fn push(&self, value: T) -> Result<(), T> {
        let Some((index, _)) = self.take(&self.free, false) else { return Err(value) };
        // SAFETY: the node was taken off the free stack, so no other thread accesses its
        // value until it is pushed below; the pop that freed it read the value before its
        // Release swap of `free`, which `take`'s Acquire swap read from.
        self.nodes[index].value.with_mut(|slot| unsafe { slot.write(MaybeUninit::new(value)) });
        // Release: the value is written before a pop can take the node.
        let publish = if PushRelaxed.is_active() { Ordering::Relaxed } else { Ordering::Release };
        self.put(&self.top, index, publish, !RetryWithoutRelink.is_active());
        Ok(())
    }

    /// Pops the value pushed last, if any.
    pub fn pop(&self) -> Option<T> {
        let (index, owned) = self.take(&self.top, StalePop.is_active())?;
        // SAFETY: the node was taken off the stack by this thread's swap, so no other
        // thread writes its value until it is freed below; its push wrote the value
        // before its Release swap, which `take`'s Acquire load or swap read from (or
        // from a later swap in its release sequence). (Not `owned`: the planted
        // `StalePop` reads a node another pop took, which may be reused meanwhile.)
        let value = self.nodes[index].value.with(|slot| unsafe { slot.read().assume_init() });
        if owned {
            self.put(&self.free, index, Ordering::Release, true);
        }
        Some(value)
    }

    /// Swaps the top node off the list at `head` (Acquire) and returns it, owned;
    /// `None` when the list is empty. With `give_up` (the planted `StalePop`), a failed
    /// swap returns the node it saw, not owned.
    fn take(&self, head: &AtomicU64, give_up: bool) -> Option<(usize, bool)> {
        let mut current = head.load(Ordering::Acquire);
        loop {
            let index = node(current).checked_sub(1)?;
            let next = self.nodes[index].next.load(Ordering::Relaxed);
            match head.compare_exchange(current, retag(current, next), Ordering::Acquire, Ordering::Acquire) {
                Ok(_) => return Some((index, true)),
                Err(_) if give_up => return Some((index, false)),
                Err(actual) => current = actual,
            }
        }
    }

    /// Swaps node `index` onto the list at `head` with `publish` ordering. Without
    /// `relink` (the planted `RetryWithoutRelink`), a retry keeps the link it set first.
    fn put(&self, head: &AtomicU64, index: usize, publish: Ordering, relink: bool) {
        let mut current = head.load(Ordering::Relaxed);
        self.nodes[index].next.store(node(current), Ordering::Relaxed);
        loop {
            match head.compare_exchange(current, retag(current, index + 1), publish, Ordering::Relaxed) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
            if relink {
                self.nodes[index].next.store(node(current), Ordering::Relaxed);
            }
        }
    }
}
