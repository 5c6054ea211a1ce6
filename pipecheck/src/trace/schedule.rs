//! A shuttle schedule and its text encoding, in std-only code.
//!
//! The encoding is shuttle's own (`shuttle_engine::scheduler::serialization`, format
//! byte `0x91`): `[magic] [task-id bit width] [step count] [seed] [steps]`, the three
//! numbers as LEB128 varints and the steps as a dense little-endian bit string (a `0`
//! bit then the task id for a context switch, a `1` bit for a random draw), written as
//! hex in lines of 76 characters. So a trace's body can also be pasted into
//! `shuttle::replay`. Decoding is ours because shuttle's decoder panics on truncated
//! input; ours says what is wrong.

use std::fmt;

/// shuttle's schedule format byte (`SCHEDULE_MAGIC_V2`).
const MAGIC: u8 = 0x91;
/// Hex characters per line, as shuttle writes them.
const LINE_WIDTH: usize = 76;

/// One scheduling decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run the task with this id next.
    Task(usize),
    /// A random value was drawn.
    Random,
}

/// A schedule: the seed of the random values and every decision, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Seed of the execution's random values.
    pub seed: u64,
    /// The decisions.
    pub steps: Vec<Step>,
}

/// Why an encoded schedule could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A character that is not a hex digit, at this 0-based character index of the
    /// hex text (whitespace removed).
    NotHex(usize),
    /// An odd number of hex digits.
    OddLength,
    /// No bytes at all.
    Empty,
    /// The format byte is not shuttle's `0x91`.
    Format(u8),
    /// The data ends before the header or the steps it announces.
    Truncated {
        /// Steps the header announced.
        announced: usize,
        /// Steps present.
        found: usize,
    },
    /// A header number is malformed.
    BadHeader(&'static str),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotHex(i) => write!(f, "character {} of the schedule is not a hex digit", i + 1),
            DecodeError::OddLength => f.write_str("the schedule has an odd number of hex digits"),
            DecodeError::Empty => f.write_str("the schedule is empty"),
            DecodeError::Format(b) => write!(
                f,
                "schedule format byte is {b:#04x}, not {MAGIC:#04x}: written by another shuttle schedule format"
            ),
            DecodeError::Truncated { announced, found } => write!(
                f,
                "the schedule is truncated: its header announces {announced} steps but the data holds {found}"
            ),
            DecodeError::BadHeader(what) => write!(f, "the schedule's {what} is malformed"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl Schedule {
    /// Number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there are no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// shuttle's hex encoding, wrapped at 76 characters.
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck::trace::schedule::{Schedule, Step};
    /// let schedule = Schedule { seed: 7, steps: vec![Step::Task(0), Step::Task(1), Step::Random] };
    /// assert_eq!(Schedule::decode(&schedule.encode()), Ok(schedule));
    /// ```
    pub fn encode(&self) -> String {
        let max_id =
            self.steps.iter().filter_map(|s| if let Step::Task(t) = s { Some(*t) } else { None }).max();
        let bits = (usize::BITS - max_id.unwrap_or(0).leading_zeros()).max(1) as usize;
        let mut bytes = vec![MAGIC];
        write_varint(&mut bytes, bits as u64);
        write_varint(&mut bytes, self.steps.len() as u64);
        write_varint(&mut bytes, self.seed);
        let mut stream = BitWriter::default();
        for step in &self.steps {
            match *step {
                Step::Task(id) => {
                    stream.push(false);
                    for b in 0..bits {
                        stream.push(id >> b & 1 == 1);
                    }
                }
                Step::Random => stream.push(true),
            }
        }
        bytes.extend(stream.bytes);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        hex.as_bytes()
            .chunks(LINE_WIDTH)
            .map(|c| std::str::from_utf8(c).expect("hex is ascii"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Decodes shuttle's hex encoding (whitespace is ignored).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] saying what is wrong; never panics.
    pub fn decode(text: &str) -> Result<Schedule, DecodeError> {
        let hex: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        if let Some(i) = hex.iter().position(|b| !b.is_ascii_hexdigit()) {
            return Err(DecodeError::NotHex(i));
        }
        if !hex.len().is_multiple_of(2) {
            return Err(DecodeError::OddLength);
        }
        let digit = |b: u8| (b as char).to_digit(16).expect("checked hex") as u8;
        let bytes: Vec<u8> = hex.chunks(2).map(|p| digit(p[0]) << 4 | digit(p[1])).collect();
        let (&magic, mut rest) = bytes.split_first().ok_or(DecodeError::Empty)?;
        if magic != MAGIC {
            return Err(DecodeError::Format(magic));
        }
        let bits = read_varint(&mut rest).ok_or(DecodeError::BadHeader("task-id width"))? as usize;
        if bits == 0 || bits > 32 {
            return Err(DecodeError::BadHeader("task-id width"));
        }
        let announced = read_varint(&mut rest).ok_or(DecodeError::BadHeader("step count"))? as usize;
        let seed = read_varint(&mut rest).ok_or(DecodeError::BadHeader("seed"))?;
        let bit = |i: usize| rest.get(i / 8).map(|byte| byte >> (i % 8) & 1 == 1);
        let mut steps = Vec::with_capacity(announced.min(1 << 20));
        let mut offset = 0;
        let truncated = |found| DecodeError::Truncated { announced, found };
        while steps.len() < announced {
            match bit(offset) {
                None => return Err(truncated(steps.len())),
                Some(true) => {
                    steps.push(Step::Random);
                    offset += 1;
                }
                Some(false) => {
                    let mut id = 0usize;
                    for b in 0..bits {
                        if bit(offset + 1 + b).ok_or_else(|| truncated(steps.len()))? {
                            id |= 1 << b;
                        }
                    }
                    steps.push(Step::Task(id));
                    offset += 1 + bits;
                }
            }
        }
        Ok(Schedule { seed, steps })
    }
}

#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    len: usize,
}

impl BitWriter {
    fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            *self.bytes.last_mut().expect("pushed above") |= 1 << (self.len % 8);
        }
        self.len += 1;
    }
}

fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let low = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// LEB128, as shuttle writes it (at most ten bytes).
fn read_varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        if shift == 63 && byte > 1 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_tasks_randoms_and_big_seeds() {
        let steps = (0..300).map(|i| if i % 17 == 5 { Step::Random } else { Step::Task(i % 5) }).collect();
        let schedule = Schedule { seed: u64::MAX - 3, steps };
        assert_eq!(Schedule::decode(&schedule.encode()), Ok(schedule));
        let empty = Schedule::default();
        assert_eq!(Schedule::decode(&empty.encode()), Ok(empty));
    }

    #[test]
    fn matches_shuttles_byte_layout() {
        // serialize_schedule(Schedule { seed: 10, steps: [Task(0)] }) in shuttle-engine 0.1.8:
        // magic 0x91, width 1, one step, seed 10, then the bits 0 (task) 0 (id) -> 0x00.
        let schedule = Schedule { seed: 10, steps: vec![Step::Task(0)] };
        assert_eq!(schedule.encode(), "9101010a00");
    }

    #[test]
    fn rejects_truncated_and_foreign_schedules() {
        let schedule = Schedule { seed: 1, steps: vec![Step::Task(3); 40] };
        let text = schedule.encode();
        assert!(matches!(Schedule::decode(&text[..text.len() - 4]), Err(DecodeError::Truncated { .. })));
        assert_eq!(Schedule::decode(&format!("92{}", &text[2..])), Err(DecodeError::Format(0x92)));
        assert_eq!(Schedule::decode("91zz"), Err(DecodeError::NotHex(2)));
        assert_eq!(Schedule::decode("910"), Err(DecodeError::OddLength));
        assert_eq!(Schedule::decode(""), Err(DecodeError::Empty));
        assert!(Schedule::decode("91").is_err());
    }
}
