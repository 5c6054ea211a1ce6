//! The reader's view of unconsumed bytes: a multi-segment buffer, positions in it, and
//! a [`bytes::Buf`] cursor over it.

use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;

use crate::pipe::error::PipeError;
use crate::pipe::pool::Shell;

/// A point in the stream, taken from a [`ReadBuf`], for [`Reader::advance_to`](crate::Reader::advance_to).
///
/// Positions belong to the read that produced them: using one with a later read is a
/// [`PipeError::StalePosition`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) offset: u64,
    pub(crate) read: u64,
}

impl Position {
    /// The absolute stream offset (bytes since the pipe started).
    pub fn offset(self) -> u64 {
        self.offset
    }
}

/// The outcome of a read: the unconsumed bytes and the pipe's status.
#[derive(Debug)]
pub struct ReadResult<'a> {
    pub(crate) buffer: ReadBuf<'a>,
    pub(crate) is_completed: bool,
    pub(crate) is_canceled: bool,
}

impl<'a> ReadResult<'a> {
    /// The committed bytes not yet consumed.
    pub fn buffer(&self) -> &ReadBuf<'a> {
        &self.buffer
    }

    /// Takes the buffer out of the result.
    pub fn into_buffer(self) -> ReadBuf<'a> {
        self.buffer
    }

    /// The writer has completed: no bytes will follow this buffer.
    pub fn is_completed(&self) -> bool {
        self.is_completed
    }

    /// The read was released by [`Reader::cancel_pending_read`](crate::Reader::cancel_pending_read).
    pub fn is_canceled(&self) -> bool {
        self.is_canceled
    }
}

/// A read-only view of stream bytes `[start, end)` spread over linked segments.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_sync::future::block_on;
/// let (mut writer, mut reader) = pipecheck_pipe::PipeOptions::new()
///     .minimum_segment_size(4)
///     .maximum_segment_size(4)
///     .build()
///     .unwrap();
/// writer.write(b"hello world").unwrap();
/// block_on(writer.flush()).unwrap();
/// let result = block_on(reader.read()).unwrap();
/// let buffer = result.buffer();
/// assert_eq!(buffer.len(), 11);
/// assert!(buffer.chunks().count() >= 3); // 4-byte segments
/// assert_eq!(buffer.slice(6..11).unwrap().to_vec(), b"world");
/// let end = buffer.end();
/// reader.advance_to(end, end).unwrap();
/// ```
#[derive(Clone, Copy)]
pub struct ReadBuf<'a> {
    segments: &'a VecDeque<Shell>,
    /// Index of the segment holding `start` (iteration begins there).
    first: usize,
    start: u64,
    end: u64,
    read: u64,
}

impl<'a> ReadBuf<'a> {
    pub(crate) fn new(segments: &'a VecDeque<Shell>, start: u64, end: u64, read: u64) -> ReadBuf<'a> {
        let mut buf = ReadBuf { segments, first: 0, start, end, read };
        buf.seek_first();
        buf
    }

    /// Moves `first` forward to the segment holding `start`.
    fn seek_first(&mut self) {
        while self.first + 1 < self.segments.len() && self.segments[self.first + 1].base <= self.start {
            self.first += 1;
        }
    }

    /// Bytes in the view.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the view holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The position of the first byte.
    pub fn start(&self) -> Position {
        Position { offset: self.start, read: self.read }
    }

    /// The position just past the last byte.
    pub fn end(&self) -> Position {
        Position { offset: self.end, read: self.read }
    }

    /// The position `offset` bytes after the start.
    ///
    /// # Errors
    ///
    /// [`PipeError::PositionOutOfRange`] when `offset > len()`.
    pub fn position(&self, offset: usize) -> Result<Position, PipeError> {
        let absolute = self.start.saturating_add(offset as u64);
        if absolute > self.end {
            return Err(self.out_of_range(absolute));
        }
        Ok(Position { offset: absolute, read: self.read })
    }

    /// The sub-view of bytes `range` (relative to the start).
    ///
    /// # Errors
    ///
    /// [`PipeError::PositionOutOfRange`] when the range does not fit.
    pub fn slice(&self, range: Range<usize>) -> Result<ReadBuf<'a>, PipeError> {
        let from = self.start.saturating_add(range.start as u64);
        let to = self.start.saturating_add(range.end as u64);
        if to > self.end || from > to {
            // The offending offset: `from` when reversed, else `to` (past the end).
            return Err(self.out_of_range(from.max(to)));
        }
        let mut sub = ReadBuf { start: from, end: to, ..*self };
        sub.seek_first();
        Ok(sub)
    }

    /// The sub-view between two positions of this read.
    ///
    /// # Errors
    ///
    /// [`PipeError::StalePosition`] for a position of another read,
    /// [`PipeError::PositionOutOfRange`] when outside this view or reversed.
    pub fn slice_between(&self, from: Position, to: Position) -> Result<ReadBuf<'a>, PipeError> {
        for p in [from, to] {
            if p.read != self.read {
                return Err(PipeError::StalePosition { position_read: p.read, current_read: self.read });
            }
        }
        let start = self.start;
        self.slice((from.offset.saturating_sub(start)) as usize..(to.offset.saturating_sub(start)) as usize)
            .and_then(|s| if from.offset < start { Err(self.out_of_range(from.offset)) } else { Ok(s) })
    }

    fn out_of_range(&self, offset: u64) -> PipeError {
        PipeError::PositionOutOfRange { offset, start: self.start, end: self.end }
    }

    /// The contiguous pieces of the view, in order.
    pub fn chunks(&self) -> Chunks<'a> {
        Chunks { buf: *self, index: self.first }
    }

    /// The first contiguous piece (empty if the view is empty).
    pub fn first_chunk(&self) -> &'a [u8] {
        self.chunks().next().unwrap_or(&[])
    }

    /// Copies the first `min(len, dst.len())` bytes into `dst`; returns how many.
    pub fn copy_to(&self, dst: &mut [u8]) -> usize {
        let mut copied = 0;
        for chunk in self.chunks() {
            if copied == dst.len() {
                break;
            }
            let n = chunk.len().min(dst.len() - copied);
            dst[copied..copied + n].copy_from_slice(&chunk[..n]);
            copied += n;
        }
        copied
    }

    /// The bytes as a new vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for chunk in self.chunks() {
            out.extend_from_slice(chunk);
        }
        out
    }

    /// A [`bytes::Buf`] cursor over the view.
    pub fn cursor(&self) -> ReadCursor<'a> {
        ReadCursor { buf: *self }
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("start", &self.start)
            .field("end", &self.end)
            .field("segments", &(self.segments.len() - self.first))
            .finish()
    }
}

/// Iterator over the contiguous pieces of a [`ReadBuf`].
#[derive(Debug)]
pub struct Chunks<'a> {
    buf: ReadBuf<'a>,
    index: usize,
}

impl<'a> Iterator for Chunks<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let segments = self.buf.segments;
        while self.index < segments.len() {
            let segment = &segments[self.index];
            self.index += 1;
            let memory = segment.memory();
            let segment_end = match segments.get(self.index) {
                Some(next) => next.base,
                None => segment.base + memory.capacity() as u64,
            };
            let from = self.buf.start.max(segment.base);
            let to = self.buf.end.min(segment_end);
            if from >= to {
                if segment.base >= self.buf.end {
                    return None;
                }
                continue;
            }
            let local = (from - segment.base) as usize..(to - segment.base) as usize;
            // SAFETY: `[from, to)` lies below the committed offset seen under the lock
            // when this read completed, and the writer writes only at or after its
            // written offset, which never goes below committed; the segment stays
            // linked (and its memory alive) while the reader is borrowed by this view.
            return Some(unsafe { memory.read(local) });
        }
        None
    }
}

/// A [`bytes::Buf`] over a [`ReadBuf`]: consume bytes without copying segments together.
#[derive(Debug, Clone, Copy)]
pub struct ReadCursor<'a> {
    buf: ReadBuf<'a>,
}

impl<'a> ReadCursor<'a> {
    /// The position reached so far, for [`Reader::advance_to`](crate::Reader::advance_to).
    pub fn position(&self) -> Position {
        self.buf.start()
    }
}

impl bytes::Buf for ReadCursor<'_> {
    fn remaining(&self) -> usize {
        self.buf.len()
    }

    fn chunk(&self) -> &[u8] {
        self.buf.first_chunk()
    }

    fn advance(&mut self, cnt: usize) {
        assert!(cnt <= self.buf.len(), "advance past the end of the buffer");
        self.buf.start += cnt as u64;
        self.buf.seek_first();
    }

    /// One slice per segment piece, in order, as many as `dst` holds (for vectored
    /// writes); returns how many were filled. Fewer than the pieces when `dst` is short,
    /// none when nothing remains.
    fn chunks_vectored<'b>(&'b self, dst: &mut [std::io::IoSlice<'b>]) -> usize {
        let mut filled = 0;
        for (slot, chunk) in dst.iter_mut().zip(self.buf.chunks()) {
            *slot = std::io::IoSlice::new(chunk);
            filled += 1;
        }
        filled
    }
}
