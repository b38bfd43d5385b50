//! `experiments interleave`: statements of concurrent sessions interleaved on real connections, in the style of
//! PostgreSQL's isolation tester (`src/test/isolation/`). This module reads its spec format (the subset below),
//! each block read once as SQL or the protocol's operations ([`Block`]), and lists the permutations; `engine.rs`
//! runs them, the same loop on either store (`pg.rs` on a PostgreSQL server, its output what PostgreSQL 15's own
//! `isolationtester` prints for the same spec; `lite.rs` on SQLite), and `print.rs` writes result sets as the
//! tester does (libpq's `PQprint`).
//!
//! The subset: `setup { SQL }` (any number), `teardown { SQL }`, then sessions (`session NAME`, an optional
//! `setup { SQL }`, one or more `step NAME { SQL }`, an optional `teardown { SQL }`), then `permutation STEP …`
//! lines (every interleaving of the sessions' steps when there are none). Names are identifiers or `"quoted"`;
//! `#` starts a comment. A block whose text starts with `@` calls the protocol's own operations (`ops.rs`). Anything else — a step marker such as `s1(s2)`, an unknown word — is refused with the line
//! it is on.

pub mod answer;
pub mod check;
mod engine;
pub mod lite;
mod lite_sql;
pub mod ops;
#[cfg(feature = "postgres")]
pub mod pg;
#[cfg(feature = "postgres")]
mod pg_session;
pub mod print;
pub mod run;
pub mod table;

/// The isolation level every session's transactions run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    pub const ALL: [Isolation; 3] = [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ];

    /// The flag's word: `read-committed`, `repeatable-read`, `serializable`.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read-committed",
            Isolation::RepeatableRead => "repeatable-read",
            Isolation::Serializable => "serializable",
        }
    }

    pub fn from_name(name: &str) -> Option<Isolation> {
        Isolation::ALL.into_iter().find(|i| i.name() == name)
    }

    /// As PostgreSQL's `SET … ISOLATION LEVEL` spells it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

/// A setup's, teardown's or step's block, read once as the spec is parsed: SQL for the store, or the protocol's
/// operations (`ops.rs`), so that no runner has to tell them apart from the text again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Sql(String),
    Ops { text: String, ops: Vec<ops::Op> },
}

impl Block {
    /// The block's text as the tester prints it: spaces and tabs trimmed at both ends, line breaks kept.
    pub fn text(&self) -> &str {
        match self {
            Block::Sql(text) | Block::Ops { text, .. } => text,
        }
    }
}

/// A block reads as its text, which is what a reader of the spec wrote and what the output prints.
impl std::ops::Deref for Block {
    type Target = str;

    fn deref(&self) -> &str {
        self.text()
    }
}

impl PartialEq<&str> for Block {
    fn eq(&self, other: &&str) -> bool {
        self.text() == *other
    }
}

/// A parsed spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub setup: Vec<Block>,
    pub teardown: Option<Block>,
    pub sessions: Vec<Session>,
    /// Each a list of step names; empty: every interleaving ([`Spec::permutations`]).
    pub permutations: Vec<Vec<String>>,
    /// Each permutation's steps' markers (`s1(s2)`, `s1(*)`, `s1(s2 notices 1)`), in the same shape; a step
    /// without any has an empty list.
    pub markers: Vec<Vec<Vec<Marker>>>,
    /// What the spec's own outbox committed and its relay delivered, when it declares them: every permutation's
    /// end state is then checked for loss, duplicates and order ([`check::outbox`]).
    pub outbox: Option<Outbox>,
}

/// A spec's declaration of its outbox (`committed { … }` and `delivered { … }`, before its sessions): two
/// queries over its own tables, each answering `(stream, position)` rows, the second in delivery order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outbox {
    pub committed: String,
    pub delivered: String,
}

/// A condition on a permutation's step, as the tester's: the step is reported `<waiting ...>` and not as
/// completed until it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `*`: reported waiting as soon as it is sent, whatever happens after.
    Now,
    /// `other`: not reported complete while the step `other` is still running.
    Step(String),
    /// `other notices N`: not before `other`'s session has sent N notices since this step was sent.
    Notices(String, usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub name: String,
    pub setup: Option<Block>,
    pub steps: Vec<Step>,
    pub teardown: Option<Block>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub name: String,
    pub sql: Block,
}

/// Where a spec is refused: its line (1-based) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// A spec's tokens: a word or quoted name, or an SQL block's text (as the tester prints it).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Sql(String),
    /// `(`, `)`, `*` or `,`: a permutation's step markers.
    Mark(char),
}

fn tokens(text: &str) -> Result<Vec<(Token, usize)>, SpecError> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut line = 1;
    while let Some((_, c)) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '#' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '{' => {
                let start = line;
                let mut sql = String::new();
                let mut depth = 0;
                loop {
                    let Some((_, c)) = chars.next() else {
                        return Err(SpecError {
                            line: start,
                            message: "the `{` here is never closed".into(),
                        });
                    };
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        '\n' => line += 1,
                        _ => {}
                    }
                    sql.push(c);
                }
                // As the tester's scanner keeps it: spaces and tabs after `{` and before `}` dropped, a line
                // break kept, so that a step prints from its first character as written.
                let kept = sql.trim_matches([' ', '\t', '\r', '\x0c']);
                out.push((Token::Sql(kept.to_owned()), start));
            }
            '}' => {
                return Err(SpecError {
                    line,
                    message: "a `}` with no `{` before it".into(),
                })
            }
            '"' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\n')) | None => {
                            return Err(SpecError {
                                line,
                                message: "a quoted name that does not end on its line".into(),
                            })
                        }
                        Some((_, c)) => name.push(c),
                    }
                }
                out.push((Token::Word(name), line));
            }
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let mut word = String::from(c);
                while let Some((_, c)) =
                    chars.next_if(|&(_, c)| c.is_ascii_alphanumeric() || c == '_')
                {
                    word.push(c);
                }
                out.push((Token::Word(word), line));
            }
            '(' | ')' | '*' | ',' => out.push((Token::Mark(c), line)),
            other => {
                return Err(SpecError {
                    line,
                    message: format!("`{other}` is not part of a spec"),
                })
            }
        }
    }
    Ok(out)
}

type Tokens = std::iter::Peekable<std::vec::IntoIter<(Token, usize)>>;

/// The token after the keyword `what` on `line`: an SQL block in braces (`sql`), else a name.
fn after(it: &mut Tokens, sql: bool, what: &str, line: usize) -> Result<String, SpecError> {
    match it.next() {
        Some((Token::Sql(text), _)) if sql => Ok(text),
        Some((Token::Word(name), _)) if !sql => Ok(name),
        other => Err(SpecError {
            line: other.map_or(line, |(_, at)| at),
            message: if sql {
                format!("{what} needs an SQL block in braces, `{{ … }}`")
            } else {
                format!("{what} needs a name")
            },
        }),
    }
}

/// Reads a spec; refuses it whole, naming the line, when it is not one.
pub fn parse(text: &str) -> Result<Spec, SpecError> {
    let tokens = tokens(text)?;
    let mut it = tokens.into_iter().peekable();
    let mut spec = Spec {
        setup: Vec::new(),
        teardown: None,
        sessions: Vec::new(),
        permutations: Vec::new(),
        markers: Vec::new(),
        outbox: None,
    };
    // The outbox's two queries, each with its line, until both are read.
    let mut committed: Option<(String, usize)> = None;
    let mut delivered: Option<(String, usize)> = None;
    let last_line = text.lines().count().max(1);
    // A block of the protocol's operations is read here too, so that a wrong one is refused with its line.
    let block = |it: &mut Tokens, what: &str, line: usize| {
        let text = after(it, true, what, line)?;
        Ok(
            match ops::block(&text, what == "step")
                .map_err(|message| SpecError { line, message })?
            {
                Some(ops) => Block::Ops { text, ops },
                None => Block::Sql(text),
            },
        )
    };
    let name = |it: &mut Tokens, what: &str, line: usize| after(it, false, what, line);
    while let Some((token, line)) = it.next() {
        let word = match token {
            Token::Word(word) => word,
            Token::Sql(_) => {
                return Err(SpecError {
                    line,
                    message: "an SQL block that no setup, teardown or step owns".into(),
                })
            }
            Token::Mark(c) => {
                return Err(SpecError {
                    line,
                    message: format!("`{c}` outside a permutation's step markers"),
                })
            }
        };
        match word.as_str() {
            "setup" if spec.sessions.is_empty() => spec.setup.push(block(&mut it, "setup", line)?),
            "committed" | "delivered" if spec.sessions.is_empty() => {
                let slot = if word == "committed" {
                    &mut committed
                } else {
                    &mut delivered
                };
                if slot.is_some() {
                    return Err(SpecError {
                        line,
                        message: format!("a second `{word}` block"),
                    });
                }
                *slot = Some((after(&mut it, true, &word, line)?, line));
            }
            "teardown" if spec.sessions.is_empty() => {
                if spec.teardown.is_some() {
                    return Err(SpecError {
                        line,
                        message: "a second teardown block".into(),
                    });
                }
                spec.teardown = Some(block(&mut it, "teardown", line)?);
            }
            "session" if spec.permutations.is_empty() => {
                let session = name(&mut it, "session", line)?;
                if spec.sessions.iter().any(|s| s.name == session) {
                    return Err(SpecError {
                        line,
                        message: format!("a second session named `{session}`"),
                    });
                }
                spec.sessions.push(Session {
                    name: session,
                    setup: None,
                    steps: Vec::new(),
                    teardown: None,
                });
            }
            "setup" | "teardown" | "step" if !spec.sessions.is_empty() && spec.permutations.is_empty() => {
                let session = spec.sessions.last_mut().expect("a session");
                match word.as_str() {
                    "setup" if session.steps.is_empty() && session.setup.is_none() => {
                        session.setup = Some(block(&mut it, "setup", line)?)
                    }
                    "step" if session.teardown.is_none() => {
                        let step = name(&mut it, "step", line)?;
                        let sql = block(&mut it, "step", line)?;
                        session.steps.push(Step { name: step, sql });
                    }
                    "teardown" if session.teardown.is_none() && !session.steps.is_empty() => {
                        session.teardown = Some(block(&mut it, "teardown", line)?)
                    }
                    _ => {
                        return Err(SpecError {
                            line,
                            message: format!(
                                "`{word}` out of place in session `{}`: a session is `setup`, its steps, then `teardown`",
                                session.name
                            ),
                        })
                    }
                }
            }
            "permutation" if !spec.sessions.is_empty() => {
                let mut steps = Vec::new();
                let mut markers = Vec::new();
                // Its steps run to the next `permutation` (a permutation may go on over several lines).
                while let Some((Token::Word(w), _)) = it.peek() {
                    if w == "permutation" {
                        break;
                    }
                    steps.push(w.clone());
                    it.next();
                    markers.push(step_markers(&mut it)?);
                }
                if steps.is_empty() {
                    return Err(SpecError {
                        line,
                        message: "a permutation that names no step".into(),
                    });
                }
                spec.permutations.push(steps);
                spec.markers.push(markers);
            }
            other => {
                return Err(SpecError {
                    line,
                    message: format!(
                        "unknown or misplaced `{other}`; a spec is setup, teardown, sessions with their steps, then permutations"
                    ),
                })
            }
        }
    }
    if spec.sessions.is_empty() {
        return Err(SpecError {
            line: last_line,
            message: "no session".into(),
        });
    }
    for session in &spec.sessions {
        if session.steps.is_empty() {
            return Err(SpecError {
                line: last_line,
                message: format!("session `{}` has no step", session.name),
            });
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for step in spec.sessions.iter().flat_map(|s| &s.steps) {
        if !names.insert(step.name.as_str()) {
            return Err(SpecError {
                line: second_step_line(text, &step.name),
                message: format!("a second step named `{}`", step.name),
            });
        }
    }
    spec.outbox = match (committed, delivered) {
        (Some((committed, _)), Some((delivered, _))) => Some(Outbox {
            committed,
            delivered,
        }),
        (Some((_, line)), None) => {
            return Err(SpecError {
                line,
                message: "`committed` needs a `delivered` block too: what the relay delivered, in delivery order".into(),
            })
        }
        (None, Some((_, line))) => {
            return Err(SpecError {
                line,
                message: "`delivered` needs a `committed` block too: what the outbox committed for delivery".into(),
            })
        }
        (None, None) => None,
    };
    for (permutation, markers) in spec.permutations.iter().zip(&spec.markers) {
        let marked = markers.iter().flatten().filter_map(|m| match m {
            Marker::Step(s) | Marker::Notices(s, _) => Some(s),
            Marker::Now => None,
        });
        for (step, marks) in permutation.iter().zip(markers) {
            let session_of = |name: &str| {
                spec.sessions
                    .iter()
                    .position(|s| s.steps.iter().any(|st| st.name == name))
            };
            let own = marks.iter().find_map(|m| match m {
                Marker::Step(other) | Marker::Notices(other, _)
                    if session_of(other).is_some() && session_of(other) == session_of(step) =>
                {
                    Some(other)
                }
                _ => None,
            });
            if let Some(other) = own {
                return Err(SpecError {
                    line: line_of_permutation(text, other),
                    message: format!(
                        "step `{step}` cannot wait on `{other}`: a step of its own session, which runs one step at a time"
                    ),
                });
            }
        }
        if let Some(missing) = permutation
            .iter()
            .chain(marked)
            .find(|s| !names.contains(s.as_str()))
        {
            return Err(SpecError {
                line: line_of_permutation(text, missing),
                message: format!("the permutation names step `{missing}`, which no session has"),
            });
        }
    }
    Ok(spec)
}

/// A permutation step's markers, `( marker [, marker …] )`, if any follow it: `*`, a step's name, or a step's
/// name then `notices N`.
fn step_markers(it: &mut Tokens) -> Result<Vec<Marker>, SpecError> {
    let mut out = Vec::new();
    let Some(&(Token::Mark('('), line)) = it.peek() else {
        return Ok(out);
    };
    it.next();
    let wrong = |line: usize, what: &str| SpecError {
        line,
        message: format!(
            "a step marker is `*`, a step's name, or a step's name then `notices N`; found {what}"
        ),
    };
    loop {
        let marker = match it.next() {
            Some((Token::Mark('*'), _)) => Marker::Now,
            Some((Token::Word(step), at)) => {
                if matches!(it.peek(), Some((Token::Word(w), _)) if w == "notices") {
                    it.next();
                    match it.next() {
                        Some((Token::Word(n), _)) if n.parse::<usize>().is_ok_and(|n| n > 0) => {
                            Marker::Notices(step, n.parse().unwrap_or(1))
                        }
                        _ => return Err(wrong(at, "`notices` without a count")),
                    }
                } else {
                    Marker::Step(step)
                }
            }
            Some((_, at)) => return Err(wrong(at, "something else")),
            None => return Err(wrong(line, "the end of the spec")),
        };
        out.push(marker);
        match it.next() {
            Some((Token::Mark(','), _)) => {}
            Some((Token::Mark(')'), _)) => return Ok(out),
            Some((_, at)) => return Err(wrong(at, "no `,` or `)` after a marker")),
            None => return Err(wrong(line, "an unclosed `(`")),
        }
    }
}

/// The second line that names `word` as a step: where a duplicate is (found after the tokens).
fn second_step_line(text: &str, word: &str) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.trim_start().starts_with("step")
                && l.split_whitespace().nth(1).map(|w| w.trim_matches('"')) == Some(word)
        })
        .nth(1)
        .map_or(1, |(i, _)| i + 1)
}

fn line_of_permutation(text: &str, word: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start().starts_with("permutation")
                && l.split(|c: char| c.is_whitespace() || "(),*\"".contains(c))
                    .any(|w| w == word)
        })
        .map_or(1, |i| i + 1)
}

impl Spec {
    /// The step named `name`: its session's index and the step.
    pub fn step(&self, name: &str) -> Option<(usize, &Step)> {
        self.sessions
            .iter()
            .enumerate()
            .find_map(|(i, s)| s.steps.iter().find(|st| st.name == name).map(|st| (i, st)))
    }

    /// The steps no permutation of the spec's own names, sorted by name as the tester sorts them (none when the
    /// spec lists no permutation: every interleaving runs them all).
    pub fn unused_steps(&self) -> Vec<&str> {
        let mut unused: Vec<&str> = self
            .sessions
            .iter()
            .flat_map(|s| &s.steps)
            .map(|s| s.name.as_str())
            .filter(|name| {
                !self.permutations.is_empty()
                    && !self.permutations.iter().flatten().any(|p| p == name)
            })
            .collect();
        unused.sort_unstable();
        unused
    }

    /// How many interleavings of the sessions' steps there are (each session's in its order): what runs when
    /// the spec lists no permutation. Saturates at `u128::MAX`.
    pub fn interleavings(&self) -> u128 {
        // The multinomial, built one session at a time: C(n + k, k) for each session's k steps.
        let mut total: u128 = 1;
        let mut n: u128 = 0;
        for session in &self.sessions {
            for k in 1..=session.steps.len() as u128 {
                n += 1;
                match total.checked_mul(n) {
                    Some(t) => total = t / k,
                    None => return u128::MAX,
                }
            }
        }
        total
    }

    /// `count` interleavings drawn at random, each as likely as any other, reproducibly from `seed` (an
    /// interleaving may be drawn twice when there are few).
    pub fn sampled(&self, count: usize, seed: u64) -> Vec<Vec<String>> {
        // xorshift stays at zero from zero: the one seed that would give it zero starts it elsewhere.
        let mut state = match seed ^ 0x9e37_79b9_7f4a_7c15 {
            0 => 0x9e37_79b9_7f4a_7c15,
            s => s,
        };
        let mut next = || {
            // xorshift64*: small, and the same on every machine.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        (0..count)
            .map(|_| {
                let mut left: Vec<usize> = self.sessions.iter().map(|s| s.steps.len()).collect();
                let mut out = Vec::new();
                // A session is picked in proportion to its steps left: every interleaving equally likely.
                while let Some(total) = Some(left.iter().sum::<usize>()).filter(|t| *t > 0) {
                    let mut pick = (next() % total as u64) as usize;
                    let s = left
                        .iter()
                        .position(|&l| {
                            if pick < l {
                                true
                            } else {
                                pick -= l;
                                false
                            }
                        })
                        .unwrap_or(0);
                    let done = self.sessions[s].steps.len() - left[s];
                    out.push(self.sessions[s].steps[done].name.clone());
                    left[s] -= 1;
                }
                out
            })
            .collect()
    }

    /// The permutations to run: the spec's own, or every interleaving of the sessions' steps (each session's in
    /// its order), in the order the isolation tester lists them.
    pub fn permutations(&self) -> Vec<Vec<String>> {
        if !self.permutations.is_empty() {
            return self.permutations.clone();
        }
        let mut out = Vec::new();
        let mut piles = vec![0; self.sessions.len()];
        let mut current = Vec::new();
        self.interleave(&mut piles, &mut current, &mut out);
        out
    }

    fn interleave(
        &self,
        piles: &mut [usize],
        current: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
    ) {
        let mut found = false;
        for i in 0..self.sessions.len() {
            if piles[i] < self.sessions[i].steps.len() {
                current.push(self.sessions[i].steps[piles[i]].name.clone());
                piles[i] += 1;
                self.interleave(piles, current, out);
                piles[i] -= 1;
                current.pop();
                found = true;
            }
        }
        if !found {
            out.push(current.clone());
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
