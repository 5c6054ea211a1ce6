//! The default buffer pool: power-of-two size classes from 64 B to 1 MiB, each a small
//! free list, so a buffer given back is rented again; larger buffers are allocated to
//! size and never kept.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use pipecheck_core::{BufferPool, DefaultBufferPool};

#[test]
fn sizes_round_up_to_their_power_of_two_class() {
    let pool = DefaultBufferPool::new();
    for (asked, got) in [(0, 64), (1, 64), (64, 64), (65, 128), (3000, 4096), (1 << 20, 1 << 20)] {
        assert_eq!(pool.rent(asked).len(), got, "rent({asked})");
    }
}

#[test]
fn a_buffer_given_back_is_rented_again_for_its_class() {
    let pool = DefaultBufferPool::new();
    let mut buffer = pool.rent(3000);
    // Marked, because a buffer freed and allocated anew may well get the same address,
    // while a new buffer is zeroed.
    buffer[..4].copy_from_slice(b"mine");
    pool.give_back(buffer);
    let again = pool.rent(4000);
    assert_eq!(&again[..4], b"mine", "the 4096-byte class hands out the buffer it kept");
}

#[test]
fn buffers_larger_than_every_class_are_sized_exactly() {
    let pool = DefaultBufferPool::new();
    let large = pool.rent((1 << 20) + 1);
    assert_eq!(large.len(), (1 << 20) + 1);
    pool.give_back(large);
    assert_eq!(pool.rent((1 << 20) + 1).len(), (1 << 20) + 1);
}

#[test]
fn a_buffer_of_no_class_size_is_not_kept() {
    let pool = DefaultBufferPool::new();
    // 100 bytes is no class's size: keeping it could hand a short buffer to a 128-byte rent.
    pool.give_back(vec![0u8; 100].into_boxed_slice());
    assert_eq!(pool.rent(128).len(), 128);
}
