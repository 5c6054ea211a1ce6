//! The failure family: a side completes with a typed error while the other side is
//! reading or flushing, and the other side gets that very error back, cause and type
//! intact (**failure-cause**).

use std::sync::Arc;

use pipecheck_core::primitive::thread;
use pipecheck_core::{Failure, Fault, PipeError};
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use crate::{Scale, Scenario};

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "writer-failure-reaches-reader",
    summary: "the writer sends two bytes and completes with an io::Error while the reader reads until \
              it gets the failure, which must downcast to that io::Error",
    scale: Scale::Small,
    catches: &[Fault::FailureLosesCause],
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
            Err(PipeError::WriterFailed(failure)) => break failure,
            Err(other) => panic!("expected the writer's failure, got {other}"),
        }
    };
    let cause = failure.downcast_ref::<std::io::Error>().expect("the writer's io::Error");
    assert_eq!(cause.kind(), std::io::ErrorKind::ConnectionReset);
    reader.complete(None);
    writer.join().unwrap();
}
