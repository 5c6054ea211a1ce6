//! An echo server for length-prefixed frames over a TCP loopback connection, with the
//! pipe between the socket and the protocol on both sides:
//!
//! ```text
//! client ──tcp──▶ socket ─copy_from_reader─▶ pipe ─framing loop─▶ pipe ─copy_to_writer─▶ socket ──tcp──▶ client
//! ```
//!
//! A frame is a big-endian `u32` length and that many bytes. Some frames are several
//! times the pipes' pause threshold, so both pipes pause their writers on the way. The
//! framing loop handles whole frames only, as a protocol reader does: it waits with
//! `read_at_least` until a frame is buffered whole (the pending read releases the paused
//! input writer, so a frame larger than the pause threshold still arrives), then
//! forwards it. The client checks that every byte comes back.
//!
//! ```text
//! cargo run -p pipecheck-pipe --features tokio --example tokio_echo
//! ```
//!
//! `tests/adapters/echo.rs` runs the same [`echo`] in the test suite.
// Under loom or shuttle `main` does nothing (the pipe only runs inside a model).
#![cfg_attr(any(feature = "loom", feature = "shuttle"), allow(dead_code))]

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Buf;
use pipecheck_pipe::adapters::tokio::{copy_from_reader, copy_to_writer};
use pipecheck_pipe::{Failure, PipeEvent, PipeObserver, PipeOptions, Reader, Writer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The pipes' pause threshold: the frames below go up to several times this.
pub(crate) const PAUSE: u64 = 16 * 1024;
/// The pipes' resume threshold.
pub(crate) const RESUME: u64 = 4 * 1024;
const HEADER: usize = 4;

/// The frames the example sends: empty, tiny, just under the pause threshold, 4× it and
/// more, and odd sizes in between.
pub(crate) fn frames() -> Vec<Vec<u8>> {
    let pause = PAUSE as usize;
    [0, 1, 100, pause - 1, 4 * pause, 3 * pause + 7, 1000, 12 * pause + 3, 5]
        .iter()
        .enumerate()
        .map(|(i, &len)| (0..len).map(|j| (i * 31 + j * 7) as u8).collect())
        .collect()
}

/// `frames` as they go on the wire.
pub(crate) fn encode(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut wire = Vec::new();
    for frame in frames {
        wire.extend_from_slice(&(frame.len() as u32).to_be_bytes());
        wire.extend_from_slice(frame);
    }
    wire
}

/// What the echo did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Echoed {
    /// Frames the server's framing loop forwarded.
    pub(crate) frames: u64,
    /// The bytes the client received back.
    pub(crate) bytes: Vec<u8>,
    /// Flushes of the server's two pipes that paused their writer.
    pub(crate) paused_flushes: u64,
}

/// Counts the flushes that paused a pipe's writer.
#[derive(Debug, Default)]
struct PauseCounter(AtomicU64);

impl PipeObserver for PauseCounter {
    fn on_event(&self, event: PipeEvent) {
        if let PipeEvent::Flushed { paused: true, .. } = event {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Starts an echo server on `127.0.0.1:0`, sends `frames` from a client, and returns what
/// came back.
///
/// # Errors
///
/// Any I/O error of the client or the server; `InvalidData` for a truncated frame.
pub(crate) async fn echo(frames: &[Vec<u8>]) -> io::Result<Echoed> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let pauses = Arc::new(PauseCounter::default());
    let observer = pauses.clone();
    let server = tokio::spawn(async move {
        let (socket, _) = listener.accept().await?;
        serve(socket, observer).await
    });

    let (mut from_server, mut to_server) = TcpStream::connect(address).await?.into_split();
    let wire = encode(frames);
    // Send and receive at once: the echo of a large frame starts before it is all sent.
    let sending = async {
        to_server.write_all(&wire).await?;
        to_server.shutdown().await
    };
    let mut bytes = Vec::new();
    let (sent, received) = tokio::join!(sending, from_server.read_to_end(&mut bytes));
    sent?;
    received?;
    let frames = server.await.map_err(io::Error::other)??;
    Ok(Echoed { frames, bytes, paused_flushes: pauses.0.load(Ordering::Relaxed) })
}

/// One connection: socket → pipe → framing loop → pipe → socket. Returns the number of
/// frames echoed.
async fn serve(socket: TcpStream, pauses: Arc<PauseCounter>) -> io::Result<u64> {
    let (mut from_client, mut to_client) = socket.into_split();
    let options = || {
        PipeOptions::new()
            .minimum_segment_size(4096)
            .pause_writer_threshold(PAUSE)
            .resume_writer_threshold(RESUME)
            .observer(pauses.clone())
            .build()
            .expect("valid options")
    };
    let (mut input_writer, mut input) = options();
    let (mut output, mut output_reader) = options();

    let receiving = async {
        let received = copy_from_reader(&mut from_client, &mut input_writer).await;
        // The framing loop sees the socket's error as the writer's failure.
        input_writer.complete(received.as_ref().err().map(|e| Failure::new(e.to_string())));
        received
    };
    let framing = async {
        let framed = echo_frames(&mut input, &mut output).await;
        output.complete(framed.as_ref().err().map(|e| Failure::new(e.to_string())));
        input.complete(None);
        framed
    };
    let sending = async {
        copy_to_writer(&mut output_reader, &mut to_client).await?;
        to_client.shutdown().await
    };
    let (received, framed, sent) = tokio::join!(receiving, framing, sending);
    received?;
    sent?;
    framed
}

/// The framing loop of a protocol reader, whole frames at a time: waits for a header with
/// `read_at_least`, then for the whole frame with `read_at_least(header + length)`,
/// releasing a partial frame with nothing consumed *or examined* (`advance_to(start,
/// start)`), so its bytes count toward the wait. Frames several times the pause
/// threshold cross: a pending `read_at_least` releases the paused input writer and keeps
/// it from pausing until the frame is whole (as .NET's `ReadAtLeastAsync`). Each whole
/// frame is forwarded to `output` and flushed. Returns the number of frames once
/// `input` completes.
async fn echo_frames(input: &mut Reader, output: &mut Writer) -> io::Result<u64> {
    let mut frames = 0;
    // The whole length of the frame at the front (header included), once its header is in.
    let mut frame_len: Option<usize> = None;
    loop {
        let wanted = frame_len.unwrap_or(HEADER);
        let result = input.read_at_least(wanted).await.map_err(io::Error::other)?;
        let buffer = *result.buffer();
        let completed = result.is_completed();
        if frame_len.is_none() && buffer.len() >= HEADER {
            let len = buffer.cursor().get_u32() as usize;
            frame_len = Some(HEADER + len);
        }
        match frame_len {
            Some(len) if buffer.len() >= len => {
                // A whole frame: forward it, segment by segment, and consume it.
                let frame = buffer.slice(0..len).map_err(io::Error::other)?;
                for chunk in frame.chunks() {
                    output.write(chunk).map_err(io::Error::other)?;
                }
                let end = frame.end();
                input.advance(end).map_err(io::Error::other)?;
                output.flush().await.map_err(io::Error::other)?;
                frames += 1;
                frame_len = None;
            }
            _ if completed => {
                return if buffer.is_empty() {
                    Ok(frames)
                } else {
                    Err(io::Error::new(io::ErrorKind::InvalidData, "truncated frame"))
                };
            }
            _ => {
                // A partial frame: release it untouched and wait for the rest.
                let start = buffer.start();
                input.advance_to(start, start).map_err(io::Error::other)?;
            }
        }
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[tokio::main]
async fn main() -> io::Result<()> {
    let frames = frames();
    let echoed = echo(&frames).await?;
    let sent = encode(&frames);
    assert_eq!(echoed.frames, frames.len() as u64, "frames echoed");
    assert_eq!(echoed.bytes.len(), sent.len(), "bytes echoed");
    assert!(echoed.bytes == sent, "the echo differs from what was sent");
    assert!(echoed.paused_flushes > 0, "no pipe writer ever paused");
    let largest = frames.iter().map(Vec::len).max().unwrap_or(0);
    println!(
        "echoed {} frames, {} bytes, through two pipes pausing at {PAUSE} bytes (largest frame {largest} \
         bytes); {} flushes paused",
        echoed.frames,
        sent.len(),
        echoed.paused_flushes
    );
    Ok(())
}

// Under loom or shuttle the pipe only runs inside a model.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {}
