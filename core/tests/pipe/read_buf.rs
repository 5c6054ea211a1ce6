//! The read view: `ReadBuf` (`len`, `is_empty`, `chunks`, `first_chunk`, `slice`,
//! `slice_between`, `position`, `start`/`end`, `copy_to`, `to_vec`) and its
//! `bytes::Buf` cursor, over buffers that span several segments. Each test runs on a
//! watched thread: a chunk walk that never ends fails it in seconds instead of hanging.

use crate::common::block_on;
use crate::common::watchdog::watched;

use bytes::Buf;
use pipecheck_pipe::{PipeError, PipeOptions, Reader, Writer};

/// `data` flushed through a pipe whose segments hold `segment` bytes each.
fn segmented(data: &[u8], segment: usize) -> (Writer, Reader) {
    let (mut writer, reader) =
        PipeOptions::new().minimum_segment_size(segment).maximum_segment_size(segment).build().unwrap();
    writer.write(data).unwrap();
    block_on(writer.flush()).unwrap();
    (writer, reader)
}

fn alphabet() -> Vec<u8> {
    (b'a'..=b'z').collect()
}

#[test]
fn len_and_is_empty_describe_the_view() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let buffer = result.buffer();
        assert_eq!(buffer.len(), 26);
        assert!(!buffer.is_empty());
        assert!(buffer.slice(3..3).unwrap().is_empty());
    });
}

#[test]
fn chunks_follow_the_segments_in_order() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let chunks: Vec<&[u8]> = result.buffer().chunks().collect();
        assert_eq!(chunks, vec![&b"abcdefgh"[..], b"ijklmnop", b"qrstuvwx", b"yz"]);
        assert_eq!(result.buffer().first_chunk(), b"abcdefgh");
    });
}

#[test]
fn chunks_start_inside_a_segment_after_a_partial_consume() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let consumed = result.buffer().position(10).unwrap();
        reader.advance(consumed).unwrap();
        let result = reader.try_read().unwrap().unwrap();
        let chunks: Vec<&[u8]> = result.buffer().chunks().collect();
        assert_eq!(chunks, vec![&b"klmnop"[..], b"qrstuvwx", b"yz"]);
    });
}

#[test]
fn slice_selects_bytes_across_segments() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let slice = result.buffer().slice(6..19).unwrap();
        assert_eq!(slice.to_vec(), b"ghijklmnopqrs");
        assert_eq!(slice.chunks().collect::<Vec<_>>(), vec![&b"gh"[..], b"ijklmnop", b"qrs"]);
        assert_eq!(slice.start().offset(), 6);
        assert_eq!(slice.end().offset(), 19);
        // Slicing a slice is relative to the slice.
        assert_eq!(slice.slice(2..5).unwrap().to_vec(), b"ijk");
    });
}

#[test]
fn slice_refuses_ranges_outside_the_view() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let buffer = result.buffer();
        assert_eq!(
            buffer.slice(20..27).unwrap_err(),
            PipeError::PositionOutOfRange { offset: 27, start: 0, end: 26 }
        );
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = buffer.slice(5..4);
        assert!(matches!(reversed, Err(PipeError::PositionOutOfRange { offset: 5, .. })));
        assert_eq!(buffer.slice(0..26).unwrap().to_vec(), alphabet());
    });
}

#[test]
fn position_counts_from_the_start_of_the_view() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let buffer = result.buffer();
        assert_eq!(buffer.position(0).unwrap(), buffer.start());
        assert_eq!(buffer.position(26).unwrap(), buffer.end());
        assert_eq!(buffer.position(13).unwrap().offset(), 13);
        assert_eq!(buffer.position(27), Err(PipeError::PositionOutOfRange { offset: 27, start: 0, end: 26 }));
        let slice = buffer.slice(10..20).unwrap();
        assert_eq!(slice.position(3).unwrap().offset(), 13);
        assert!(matches!(
            slice.position(11),
            Err(PipeError::PositionOutOfRange { offset: 21, start: 10, end: 20 })
        ));
    });
}

#[test]
fn slice_between_uses_positions_of_the_same_read() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let buffer = result.buffer();
        let from = buffer.position(7).unwrap();
        let to = buffer.position(17).unwrap();
        assert_eq!(buffer.slice_between(from, to).unwrap().to_vec(), b"hijklmnopq");
        assert!(buffer.slice_between(to, to).unwrap().is_empty());
        assert!(matches!(buffer.slice_between(to, from), Err(PipeError::PositionOutOfRange { .. })));
        // A sub-view refuses positions outside itself.
        let inner = buffer.slice(10..20).unwrap();
        assert!(matches!(
            inner.slice_between(from, to),
            Err(PipeError::PositionOutOfRange { offset: 7, .. })
        ));
        assert_eq!(inner.slice_between(inner.start(), to).unwrap().to_vec(), b"klmnopq");
    });
}

#[test]
fn slice_between_refuses_positions_of_an_older_read() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let old = result.buffer().position(3).unwrap();
        let start = result.buffer().start();
        reader.advance_to(start, start).unwrap();
        let result = reader.try_read().unwrap().unwrap();
        assert_eq!(
            result.buffer().slice_between(old, result.buffer().end()).unwrap_err(),
            PipeError::StalePosition { position_read: 1, current_read: 2 }
        );
    });
}

#[test]
fn copy_to_copies_as_much_as_fits() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut small = [0u8; 10];
        assert_eq!(result.buffer().copy_to(&mut small), 10);
        assert_eq!(&small, b"abcdefghij");
        let mut large = [0u8; 40];
        assert_eq!(result.buffer().copy_to(&mut large), 26);
        assert_eq!(&large[..26], &alphabet()[..]);
        assert!(large[26..].iter().all(|&b| b == 0));
        assert_eq!(result.buffer().copy_to(&mut []), 0);
    });
}

#[test]
fn to_vec_gathers_every_segment() {
    watched(move || {
        let data: Vec<u8> = (0..=255).cycle().take(1000).collect();
        let (_writer, mut reader) = segmented(&data, 64);
        let result = reader.try_read().unwrap().unwrap();
        assert_eq!(result.buffer().to_vec(), data);
        assert_eq!(result.into_buffer().len(), 1000);
    });
}

#[test]
fn empty_view_has_no_chunks() {
    watched(move || {
        let (mut writer, mut reader) = pipecheck_pipe::pipe();
        writer.complete(None);
        let result = reader.try_read().unwrap().unwrap();
        let buffer = result.buffer();
        assert!(buffer.is_empty());
        assert_eq!(buffer.chunks().count(), 0);
        assert_eq!(buffer.first_chunk(), b"");
        assert_eq!(buffer.to_vec(), b"");
        assert_eq!(buffer.cursor().remaining(), 0);
    });
}

#[test]
fn cursor_walks_chunks_as_a_bytes_buf() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut cursor = result.buffer().cursor();
        assert_eq!(cursor.remaining(), 26);
        assert_eq!(cursor.chunk(), b"abcdefgh");
        cursor.advance(5);
        assert_eq!(cursor.chunk(), b"fgh");
        cursor.advance(3);
        assert_eq!(cursor.chunk(), b"ijklmnop", "advancing to a boundary moves to the next segment");
        assert_eq!(cursor.remaining(), 18);
        cursor.advance(18);
        assert_eq!(cursor.remaining(), 0);
        assert_eq!(cursor.chunk(), b"", "`chunk` is empty exactly when nothing remains");
    });
}

#[test]
fn cursor_copy_to_bytes_spans_segments() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut cursor = result.buffer().cursor();
        cursor.advance(6);
        assert_eq!(&cursor.copy_to_bytes(12)[..], b"ghijklmnopqr");
        assert_eq!(cursor.remaining(), 8);
        assert_eq!(&cursor.copy_to_bytes(8)[..], b"stuvwxyz");
    });
}

#[test]
fn cursor_reads_integers_split_across_segments() {
    watched(move || {
        let mut data = vec![0xEE; 6];
        data.extend_from_slice(&0xDEAD_BEEFu32.to_be_bytes()); // bytes 6..10 straddle 8
        data.extend_from_slice(&0x0102_0304_0506_0708u64.to_le_bytes()); // 10..18 straddles 16
        let (_writer, mut reader) = segmented(&data, 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut cursor = result.buffer().cursor();
        cursor.advance(6);
        assert_eq!(cursor.get_u32(), 0xDEAD_BEEF);
        assert_eq!(cursor.get_u64_le(), 0x0102_0304_0506_0708);
        assert!(!cursor.has_remaining());
    });
}

#[test]
fn cursor_chunks_vectored_lists_every_segment() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let cursor = result.buffer().cursor();
        let mut slices = [std::io::IoSlice::new(&[]); 8];
        let n = cursor.chunks_vectored(&mut slices);
        let listed: Vec<&[u8]> = slices[..n].iter().map(|s| &s[..]).collect();
        assert_eq!(listed, vec![&b"abcdefgh"[..], b"ijklmnop", b"qrstuvwx", b"yz"]);
        assert!(slices[n..].iter().all(|s| s.is_empty()), "slots past `n` are left alone");
    });
}

#[test]
fn cursor_chunks_vectored_starts_at_the_cursor_and_fills_a_short_dst() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut cursor = result.buffer().cursor();
        cursor.advance(5);
        // Room for two: the first two pieces from the cursor, and no more.
        let mut two = [std::io::IoSlice::new(&[]); 2];
        assert_eq!(cursor.chunks_vectored(&mut two), 2);
        assert_eq!((&two[0][..], &two[1][..]), (&b"fgh"[..], &b"ijklmnop"[..]));
        assert_eq!(cursor.chunks_vectored(&mut []), 0, "no room, nothing listed");
        // A sub-view ending inside a segment lists only its own bytes.
        let slice = result.buffer().slice(10..20).unwrap().cursor();
        let mut slices = [std::io::IoSlice::new(&[]); 4];
        let n = slice.chunks_vectored(&mut slices);
        let listed: Vec<&[u8]> = slices[..n].iter().map(|s| &s[..]).collect();
        assert_eq!(listed, vec![&b"klmnop"[..], b"qrst"]);
        // Nothing remaining, nothing listed.
        cursor.advance(cursor.remaining());
        assert_eq!(cursor.chunks_vectored(&mut slices), 0);
    });
}

#[test]
fn cursor_chunks_vectored_feeds_a_vectored_write() {
    watched(move || {
        use std::io::Write;
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let cursor = result.buffer().cursor();
        let mut slices = [std::io::IoSlice::new(&[]); 8];
        let n = cursor.chunks_vectored(&mut slices);
        let mut out = Vec::new();
        let written = out.write_vectored(&slices[..n]).unwrap();
        assert_eq!((written, out), (26, alphabet()));
    });
}

#[test]
#[should_panic(expected = "advance past the end")]
fn cursor_advance_past_the_end_panics() {
    watched(move || {
        let (_writer, mut reader) = segmented(b"abc", 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut cursor = result.buffer().cursor();
        cursor.advance(4);
    });
}

#[test]
fn cursor_position_is_a_valid_consume_point() {
    watched(move || {
        let (_writer, mut reader) = segmented(&alphabet(), 8);
        let result = reader.try_read().unwrap().unwrap();
        let mut cursor = result.buffer().cursor();
        cursor.advance(11);
        let position = cursor.position();
        assert_eq!(position.offset(), 11);
        reader.advance(position).unwrap();
        let result = reader.try_read().unwrap().unwrap();
        assert_eq!(result.buffer().to_vec(), b"lmnopqrstuvwxyz");
    });
}
