//! A message channel over the pipe whose `close` may run concurrently with `receive`.
//!
//! Seed 004 (dotnet/runtime, "Refactor ManagedWebSocket to avoid forcing Task
//! allocations for ReceiveAsync"): `CloseAsync` may be issued while a `ReceiveAsync` is
//! in flight, yet it must itself receive until the peer's close frame arrives. The fix
//! puts the receive path behind an [`AsyncMutex`] and rewrites close as "calling
//! `ReceiveAsync` in a loop". This module does the same over a pipe:
//!
//! * frames are `[kind: u8][len: u32 LE][payload]`, kind 0 = data, 1 = close;
//! * [`MessageReceiver::receive`] enters the async mutex, reads one frame from the pipe
//!   and returns it; after the close frame it returns [`Message::Closed`] at once;
//! * [`MessageReceiver::close`] receives in a loop until the close frame, and hands
//!   back the data messages it drained on the way, so a concurrent receiver and closer
//!   between them see every message exactly once (**byte-exact**) and both finish
//!   (**no-lost-wakeup**).

use std::fmt;

use crate::fault;
use crate::pipe::error::PipeError;
use crate::pipe::options::PipeOptions;
use crate::pipe::{Reader, Writer};
use crate::seeds::async_mutex::AsyncMutex;
use crate::seeds::primitive_event::{PrimitiveEvent, PrimitiveObserver, Probe};

const DATA: u8 = 0;
const CLOSE: u8 = 1;
const HEADER: usize = 5;

/// What a receive yields.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::Message;
/// assert_ne!(Message::Data(vec![1]), Message::Closed);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// One data message.
    Data(Vec<u8>),
    /// The close frame has arrived (now or earlier): no more messages.
    Closed,
}

/// Why a channel operation failed.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::ChannelError;
/// assert_eq!(ChannelError::Truncated.to_string(), "the stream ended without a close frame");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChannelError {
    /// The pipe underneath refused an operation.
    Pipe(PipeError),
    /// The sender completed without sending a close frame (or mid-frame).
    Truncated,
    /// The receiving end is gone: a sent message will never be read.
    ReceiverGone,
    /// A frame of unknown kind.
    BadFrame {
        /// The kind byte.
        kind: u8,
    },
    /// A message longer than a frame can describe.
    TooLong {
        /// Its length.
        len: usize,
    },
}

impl fmt::Display for ChannelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChannelError::Pipe(e) => write!(f, "pipe error: {e}"),
            ChannelError::Truncated => f.write_str("the stream ended without a close frame"),
            ChannelError::ReceiverGone => f.write_str("the receiving end is gone"),
            ChannelError::BadFrame { kind } => write!(f, "frame of unknown kind {kind}"),
            ChannelError::TooLong { len } => write!(f, "message of {len} bytes does not fit a frame"),
        }
    }
}

impl std::error::Error for ChannelError {}

impl From<PipeError> for ChannelError {
    fn from(e: PipeError) -> ChannelError {
        ChannelError::Pipe(e)
    }
}

/// A channel over a pipe built from `options`.
///
/// # Errors
///
/// The [`OptionsError`](crate::OptionsError) of invalid options.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_sync::future::block_on;
/// use pipecheck_pipe::{Message, PipeOptions, message_channel};
/// let (mut tx, rx) = message_channel(PipeOptions::new()).unwrap();
/// block_on(async {
///     tx.send(b"hi").await.unwrap();
///     tx.close().await.unwrap();
///     assert_eq!(rx.receive().await, Ok(Message::Data(b"hi".to_vec())));
///     assert_eq!(rx.close().await, Ok(vec![]));
///     assert_eq!(rx.receive().await, Ok(Message::Closed));
/// });
/// ```
pub fn message_channel(
    options: PipeOptions,
) -> Result<(MessageSender, MessageReceiver), crate::pipe::error::OptionsError> {
    build(options, None)
}

/// As [`message_channel`], with both ends (and the receiving side's async mutex)
/// reporting their [`PrimitiveEvent`]s to `observer`: every data message sent, read and
/// delivered, so a checker can tell that each reaches exactly one caller. Install a
/// [`PipeObserver`](crate::PipeObserver) in `options` to watch the pipe underneath too.
///
/// # Errors
///
/// The [`OptionsError`](crate::OptionsError) of invalid options.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use std::sync::{Arc, Mutex};
/// use pipecheck_sync::future::block_on;
/// use pipecheck_pipe::{PipeOptions, PrimitiveEvent, PrimitiveObserver, message_channel_observed};
///
/// #[derive(Default)]
/// struct Log(Mutex<Vec<PrimitiveEvent>>);
/// impl PrimitiveObserver for Log {
///     fn on_primitive_event(&self, event: PrimitiveEvent) {
///         self.0.lock().unwrap().push(event);
///     }
/// }
///
/// let log = Arc::new(Log::default());
/// let (mut tx, rx) = message_channel_observed(PipeOptions::new(), log.clone()).unwrap();
/// block_on(tx.send(b"m")).unwrap();
/// block_on(rx.receive()).unwrap();
/// let delivered = log.0.lock().unwrap().iter().filter(|e| matches!(e, PrimitiveEvent::MessageDelivered { .. })).count();
/// assert_eq!(delivered, 1);
/// ```
pub fn message_channel_observed(
    options: PipeOptions,
    observer: std::sync::Arc<dyn PrimitiveObserver>,
) -> Result<(MessageSender, MessageReceiver), crate::pipe::error::OptionsError> {
    build(options, Some(observer))
}

fn build(
    options: PipeOptions,
    observer: Option<std::sync::Arc<dyn PrimitiveObserver>>,
) -> Result<(MessageSender, MessageReceiver), crate::pipe::error::OptionsError> {
    let (writer, reader) = options.build()?;
    let mut state = AsyncMutex::new(ReceiveState { reader, closed: false, next_seq: 0 });
    let mut probe = Probe::default();
    if let Some(observer) = observer {
        state = state.observed(observer.clone());
        probe = Probe::new(observer);
    }
    let receiver = MessageReceiver { state, probe: probe.clone() };
    Ok((MessageSender { writer, probe, next_seq: 0 }, receiver))
}

/// The sending end: writes data frames and, last, a close frame.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_sync::future::block_on;
/// let (mut tx, _rx) = pipecheck_pipe::message_channel(Default::default()).unwrap();
/// block_on(tx.send(b"payload")).unwrap();
/// ```
pub struct MessageSender {
    writer: Writer,
    probe: Probe,
    /// The number of the next data message.
    next_seq: u64,
}

impl MessageSender {
    /// Sends one data message and flushes it.
    ///
    /// # Errors
    ///
    /// [`ChannelError::ReceiverGone`] when the receiving end was dropped;
    /// [`ChannelError::TooLong`] above `u32::MAX` bytes; the pipe's error.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::ChannelError;
    /// use pipecheck_sync::future::block_on;
    /// let (mut tx, rx) = pipecheck_pipe::message_channel(Default::default()).unwrap();
    /// drop(rx);
    /// assert_eq!(block_on(tx.send(b"nobody listens")), Err(ChannelError::ReceiverGone));
    /// ```
    pub async fn send(&mut self, payload: &[u8]) -> Result<(), ChannelError> {
        self.write_frame(DATA, payload)?;
        // Reported before the flush makes the frame readable.
        let seq = self.next_seq;
        self.next_seq += 1;
        self.probe.emit(|channel| PrimitiveEvent::MessageSent { channel, seq, payload: payload.to_vec() });
        if self.writer.flush().await?.is_completed {
            return Err(ChannelError::ReceiverGone);
        }
        Ok(())
    }

    /// Sends the close frame and completes the pipe.
    ///
    /// # Errors
    ///
    /// The pipe's error.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_sync::future::block_on;
    /// let (tx, rx) = pipecheck_pipe::message_channel(Default::default()).unwrap();
    /// block_on(tx.close()).unwrap();
    /// assert_eq!(block_on(rx.close()), Ok(vec![]));
    /// ```
    pub async fn close(mut self) -> Result<(), ChannelError> {
        self.write_frame(CLOSE, &[])?;
        self.writer.flush().await?;
        self.writer.complete(None);
        Ok(())
    }

    fn write_frame(&mut self, kind: u8, payload: &[u8]) -> Result<(), ChannelError> {
        let len = u32::try_from(payload.len()).map_err(|_| ChannelError::TooLong { len: payload.len() })?;
        let mut header = [kind, 0, 0, 0, 0];
        header[1..].copy_from_slice(&len.to_le_bytes());
        self.writer.write(&header)?;
        self.writer.write(payload)?;
        Ok(())
    }
}

impl fmt::Debug for MessageSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageSender").finish_non_exhaustive()
    }
}

/// The receiving end, shareable between a receiving task and a closing task.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use std::sync::Arc;
/// use pipecheck_sync::future::block_on;
/// use pipecheck_pipe::{Message, message_channel};
/// let (mut tx, rx) = message_channel(Default::default()).unwrap();
/// let rx = Arc::new(rx);
/// let receiver = {
///     let rx = rx.clone();
///     std::thread::spawn(move || block_on(rx.receive()))
/// };
/// block_on(async {
///     tx.send(b"m").await.unwrap();
///     tx.close().await.unwrap();
/// });
/// let drained = block_on(rx.close()).unwrap();
/// let received = receiver.join().unwrap().unwrap();
/// // The message went to exactly one of them.
/// match received {
///     Message::Data(m) => assert_eq!((m, drained.len()), (b"m".to_vec(), 0)),
///     Message::Closed => assert_eq!(drained, vec![b"m".to_vec()]),
/// }
/// ```
pub struct MessageReceiver {
    state: AsyncMutex<ReceiveState>,
    probe: Probe,
}

struct ReceiveState {
    reader: Reader,
    /// The close frame has been read.
    closed: bool,
    /// The number of the next data message to read.
    next_seq: u64,
}

impl MessageReceiver {
    /// Receives the next message, waiting behind a concurrent receive or close.
    ///
    /// # Errors
    ///
    /// [`ChannelError::Truncated`] when the sender went away without a close frame;
    /// [`ChannelError::BadFrame`] for garbage; the pipe's error.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_sync::future::block_on;
    /// use pipecheck_pipe::{ChannelError, message_channel};
    /// let (tx, rx) = message_channel(Default::default()).unwrap();
    /// drop(tx); // completes the pipe without a close frame
    /// assert_eq!(block_on(rx.receive()), Err(ChannelError::Truncated));
    /// ```
    pub async fn receive(&self) -> Result<Message, ChannelError> {
        match self.receive_frame(false).await? {
            Some((seq, payload)) => {
                self.deliver(seq, &payload);
                Ok(Message::Data(payload))
            }
            None => Ok(Message::Closed),
        }
    }

    /// Receives the next data message with its number, or `None` once the close frame
    /// has arrived. `by_close`: the caller is `close`, which owes the message its list.
    async fn receive_frame(&self, by_close: bool) -> Result<Option<(u64, Vec<u8>)>, ChannelError> {
        let mut state = self.state.lock().await;
        if state.closed {
            return Ok(None);
        }
        match read_frame(&mut state.reader).await? {
            (DATA, payload) => {
                let seq = state.next_seq;
                state.next_seq += 1;
                // Reported under the async mutex: reads are logged in the order they happen.
                self.probe.emit(|channel| PrimitiveEvent::MessageRead { channel, seq, by_close });
                Ok(Some((seq, payload)))
            }
            (CLOSE, _) => {
                state.closed = true;
                Ok(None)
            }
            (kind, _) => Err(ChannelError::BadFrame { kind }),
        }
    }

    /// Reports that data message `seq` reached a caller.
    fn deliver(&self, seq: u64, payload: &[u8]) {
        self.probe.emit(|channel| PrimitiveEvent::MessageDelivered {
            channel,
            seq,
            payload: payload.to_vec(),
        });
    }

    /// Receives in a loop until the close frame arrives, and returns the data messages
    /// drained on the way, oldest first. Safe to run while another task receives.
    ///
    /// # Errors
    ///
    /// As [`receive`](Self::receive).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_sync::future::block_on;
    /// let (mut tx, rx) = pipecheck_pipe::message_channel(Default::default()).unwrap();
    /// block_on(async {
    ///     tx.send(b"a").await.unwrap();
    ///     tx.send(b"b").await.unwrap();
    ///     tx.close().await.unwrap();
    ///     assert_eq!(rx.close().await, Ok(vec![b"a".to_vec(), b"b".to_vec()]));
    /// });
    /// ```
    pub async fn close(&self) -> Result<Vec<Vec<u8>>, ChannelError> {
        let mut drained = Vec::new();
        if fault::CloseReturnsWhileReceiving.is_active() && self.state.try_lock().is_none() {
            // The planted bug: a receive holds the lock, so the close leaves the close
            // frame to it and returns at once.
            self.probe.emit(|channel| PrimitiveEvent::ChannelCloseReturned { channel });
            return Ok(drained);
        }
        loop {
            match self.receive_frame(true).await? {
                Some((seq, payload)) => {
                    if !fault::CloseDropsFrame.is_active() {
                        self.deliver(seq, &payload);
                        drained.push(payload);
                    }
                }
                None => {
                    self.probe.emit(|channel| PrimitiveEvent::ChannelCloseReturned { channel });
                    return Ok(drained);
                }
            }
        }
    }
}

impl fmt::Debug for MessageReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageReceiver").finish_non_exhaustive()
    }
}

/// Reads one whole frame: its kind and payload.
async fn read_frame(reader: &mut Reader) -> Result<(u8, Vec<u8>), ChannelError> {
    loop {
        let result = reader.read().await?;
        let buffer = result.buffer();
        let mut header = [0u8; HEADER];
        if buffer.len() >= HEADER {
            buffer.copy_to(&mut header);
            let len = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
            if buffer.len() >= HEADER + len {
                let payload = buffer.slice(HEADER..HEADER + len)?.to_vec();
                let end = buffer.position(HEADER + len)?;
                reader.advance_to(end, end)?;
                return Ok((header[0], payload));
            }
        }
        if result.is_completed() {
            return Err(ChannelError::Truncated);
        }
        // Not a whole frame yet: consume nothing, examine everything, wait for more.
        let (start, end) = (buffer.start(), buffer.end());
        reader.advance_to(start, end)?;
    }
}
