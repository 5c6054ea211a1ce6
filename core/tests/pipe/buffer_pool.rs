//! The buffer pools: power-of-two size classes from 64 B to 1 MiB, each a small free
//! list, so a buffer given back is rented again; larger buffers are allocated to size
//! and never kept. The default pool (lock-free classes) and the locked one behave
//! alike, tested through the same functions.

use std::sync::Arc;
use std::thread;

use pipecheck_pipe::{BufferPool, DefaultBufferPool, LockedBufferPool};

/// Runs `check` on a fresh pool of each kind.
fn each_pool(check: impl Fn(&dyn BufferPool)) {
    check(&DefaultBufferPool::new());
    check(&LockedBufferPool::new());
}

#[test]
fn sizes_round_up_to_their_power_of_two_class() {
    each_pool(|pool| {
        for (asked, got) in [(0, 64), (1, 64), (64, 64), (65, 128), (3000, 4096), (1 << 20, 1 << 20)] {
            assert_eq!(pool.rent(asked).len(), got, "rent({asked})");
        }
    });
}

#[test]
fn a_buffer_given_back_is_rented_again_for_its_class() {
    each_pool(|pool| {
        let mut buffer = pool.rent(3000);
        // Marked, because a buffer freed and allocated anew may well get the same
        // address, while a new buffer is zeroed.
        buffer[..4].copy_from_slice(b"mine");
        pool.give_back(buffer);
        let again = pool.rent(4000);
        assert_eq!(&again[..4], b"mine", "the 4096-byte class hands out the buffer it kept");
    });
}

#[test]
fn buffers_larger_than_every_class_are_sized_exactly() {
    each_pool(|pool| {
        let large = pool.rent((1 << 20) + 1);
        assert_eq!(large.len(), (1 << 20) + 1);
        pool.give_back(large);
        assert_eq!(pool.rent((1 << 20) + 1).len(), (1 << 20) + 1);
    });
}

#[test]
fn a_buffer_of_no_class_size_is_not_kept() {
    each_pool(|pool| {
        // 100 bytes is no class's size: keeping it could hand a short buffer to a
        // 128-byte rent.
        pool.give_back(vec![0u8; 100].into_boxed_slice());
        assert_eq!(pool.rent(128).len(), 128);
    });
}

#[test]
fn a_class_keeps_at_most_64_buffers() {
    each_pool(|pool| {
        for mark in 0..65u8 {
            let mut buffer = vec![0u8; 64].into_boxed_slice();
            buffer[0] = mark + 1;
            pool.give_back(buffer);
        }
        let mut kept: Vec<u8> = (0..65).map(|_| pool.rent(64)[0]).collect();
        kept.sort_unstable();
        // 64 marked buffers come back (in either order); the 65th rent is a new, zeroed one.
        assert_eq!(kept[0], 0, "one buffer was dropped, not kept");
        assert_eq!(kept[1..], (1..=64).collect::<Vec<u8>>()[..], "the other 64 were kept");
    });
}

/// The pipe's use: one thread rents, another gives back, at once. Every buffer comes
/// back whole and is rented by exactly one thread (each writes its own mark).
#[test]
fn one_thread_rents_while_another_gives_back() {
    let pool = Arc::new(DefaultBufferPool::new());
    let (to_reader, from_writer) = std::sync::mpsc::sync_channel::<Box<[u8]>>(8);
    let renter = {
        let pool = pool.clone();
        thread::spawn(move || {
            for i in 0..20_000u32 {
                let mut buffer = pool.rent(4096);
                buffer[..4].copy_from_slice(&i.to_le_bytes());
                to_reader.send(buffer).expect("the reader is alive");
            }
        })
    };
    for i in 0..20_000u32 {
        let buffer = from_writer.recv().expect("the writer sends 20,000 buffers");
        assert_eq!(buffer.len(), 4096);
        assert_eq!(buffer[..4], i.to_le_bytes(), "a buffer handed to two renters would be overwritten");
        pool.give_back(buffer);
    }
    renter.join().expect("renter");
}
