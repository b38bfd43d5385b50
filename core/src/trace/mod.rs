//! The trace format of TRACE.md — the one contract between the core, the UI, the CLI and the tests — and the one
//! engine that replays it, by job:
//! - [`step`]: the steps and the trace that holds them;
//! - [`read`]: reading and validating untrusted trace text;
//! - [`session`]: the engine, [`Session`];
//! - [`report`]: each step's outcome and the result document.

pub mod read;
pub mod report;
pub mod session;
pub mod step;

pub use read::{from_value, parse, TraceError};
pub use report::{ResultDoc, StepReport};
pub use session::{refuse_power, replay, replay_in, replay_on, replay_text, Session};
pub use step::{schema_payload, ConsumerSetup, Op, Step, Trace, Write};

pub const TRACE_FORMAT: &str = "outbox-playground-trace/1";
pub const RESULT_FORMAT: &str = "outbox-playground-result/1";
pub const MAX_STEPS: usize = 10_000;
pub const MAX_TRACE_BYTES: usize = 1024 * 1024;
pub const DEFAULT_PROCESS_LIMIT: u32 = 1000;
pub const MAX_PROCESS_LIMIT: i64 = 1_000_000;

/// Indents compact JSON exactly as serde_json's pretty printer does (two spaces, `": "`, `[]` and `{}` kept
/// whole). The page serialises a trace one way only, so its serialiser is in the module once, not twice.
pub fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    let mut chars = compact.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}
