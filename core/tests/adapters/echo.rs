//! The tokio echo example (`examples/tokio_echo.rs`) as a test: length-prefixed frames,
//! up to 12× the pause threshold, over TCP loopback through two pipes, byte-exact.

#[path = "../../examples/tokio_echo.rs"]
#[allow(dead_code)] // the example's `main`
mod tokio_echo;

use crate::common::watched::WatchFuture;
use tokio_echo::{PAUSE, echo, encode, frames};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_larger_than_the_pause_threshold_echo_over_tcp() {
    let frames = frames();
    assert!(frames.iter().any(|f| f.len() as u64 >= 4 * PAUSE));
    let echoed = echo(&frames).watched().await.unwrap();
    assert_eq!(echoed.frames, frames.len() as u64);
    let sent = encode(&frames);
    assert_eq!(echoed.bytes.len(), sent.len());
    assert!(echoed.bytes == sent, "the echo differs from what was sent");
    assert!(echoed.paused_flushes > 0, "no pipe writer ever paused");
}

#[tokio::test(flavor = "current_thread")]
async fn the_echo_runs_on_a_single_threaded_runtime_too() {
    let frames = frames();
    let echoed = echo(&frames).watched().await.unwrap();
    assert!(echoed.bytes == encode(&frames), "the echo differs from what was sent");
}

#[tokio::test]
async fn no_frames_echo_nothing() {
    let echoed = echo(&[]).watched().await.unwrap();
    assert_eq!((echoed.frames, echoed.bytes.len()), (0, 0));
}
