//! Reading a spec as PostgreSQL's isolation tester reads it: its tokens, its blocks (each read once as SQL or
//! the protocol's operations), the permutations' step markers, a spec's outbox, refused whole with the line named.

use super::{ops, Block, Marker, Outbox, Session, Spec, SpecError, Step};

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
