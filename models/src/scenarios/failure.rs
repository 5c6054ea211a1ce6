//! The failure family: a side completes with a typed error while the other side is
//! reading or flushing, and the other side gets that very error back, cause and type
//! intact (**failure-cause**).

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_pipe::{Failure, PipeError};
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "writer-failure-reaches-reader",
    summary: "the writer sends two bytes and completes with an io::Error while the reader reads until \
              it gets the failure, which must downcast to that io::Error",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: writer_failure_reaches_reader,
}];

fn writer_failure_reaches_reader(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        let error = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "peer reset");
        writer.complete(Some(Failure::from_error(error)));
    });
    let failure = loop {
        match reader.read_and_consume(|len| len) {
            Ok(_) => continue,
            Err(PipeError::WriterFailed(failure)) => break Ok(failure),
            Err(other) => break Err(other),
        }
    };
    reader.complete(None);
    writer.join().unwrap();
    let failure = failure.map_err(|other| format!("the read failed with {other}, not the writer's failure"));
    let kind = failure.as_ref().map(|f| f.downcast_ref::<std::io::Error>().map(std::io::Error::kind));
    ensure(
        matches!(kind, Ok(Some(std::io::ErrorKind::ConnectionReset))),
        pipecheck_pipe::invariant::FAILURE_CAUSE,
        || match &failure {
            Err(other) => other.clone(),
            Ok(f) => format!("the reader got {f:?}, which is not the writer's io::Error (ConnectionReset)"),
        },
    );
}
