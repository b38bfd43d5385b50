//! The code under attack (issue 66): the statements a level's processes run, in the protocol's own SQL, one
//! block per kind of move (produce, relay, apply, and the reader's rule); and, for a move the reader made, which
//! of a block's lines it ran and where an exit cut it. The blocks are read from a short run of the level's own
//! consumer and producer with the SQL log on, so they are the statements that run, not a copy that could drift.

use crate::checker::config::Ev;
use crate::checker::{Action, Config, Move};
use crate::protocol::{Location, Ordering, Role, SqlLine, WriteMode};
use crate::trace::{Session, Step};

/// The kind of move a block belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The producer's transaction (§2), the safe way.
    Produce,
    /// The article's wrong way: the state committed, then the outbox row.
    UnsafeProduce,
    /// The relay: read the outbox, write the inbox, mark the row delivered (a resend runs the same).
    Relay,
    /// One apply attempt on a flow.
    Apply,
    /// The reader's rule, which the apply asks which row to take.
    Rule,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Produce => "produce",
            Kind::UnsafeProduce => "unsafe_produce",
            Kind::Relay => "relay",
            Kind::Apply => "apply",
            Kind::Rule => "rule",
        }
    }

    /// The block a move runs, if it runs one (a checkpoint or a power cut runs none).
    pub fn of(m: &Move) -> Option<Kind> {
        match m.action {
            Action::Advance(_) => Some(Kind::Produce),
            Action::UnsafeDualWrite(_) => Some(Kind::UnsafeProduce),
            Action::Relay(_) | Action::Resend(_) => Some(Kind::Relay),
            Action::Apply(_) => Some(Kind::Apply),
            Action::Checkpoint | Action::PowerCut(_) => None,
        }
    }
}

/// One statement of a block: the database it runs on and its text, values as `?`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub db: Role,
    pub sql: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: Kind,
    pub lines: Vec<Line>,
}

/// What a move did to a block's lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    pub kind: Option<Kind>,
    /// The indices of the lines it ran.
    pub lines: Vec<usize>,
    /// The line after which the process exited, if it did.
    pub cut: Option<usize>,
}

/// The level's code under attack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    pub blocks: Vec<Block>,
}

impl Code {
    /// The blocks of `config`'s processes: the producer's on a level that attacks it (an unsafe producer, a
    /// power cut), then the relay's and the consumer's apply, with the reader's rule before the apply.
    pub fn of(config: &Config) -> Result<Code, String> {
        let producer = config.producer == WriteMode::UnsafeDualWrite || config.power_cuts > 0;
        let mut blocks = Vec::new();
        let mut runs = run(config, &script(config))?;
        if config.producer == WriteMode::UnsafeDualWrite {
            let unsafe_move = Move {
                action: Action::UnsafeDualWrite(Ev { flow: 0, seq: 1 }),
                crash: None,
            };
            runs.extend(run(config, &[unsafe_move])?);
        }
        let kinds = [
            (Kind::Produce, producer),
            (Kind::UnsafeProduce, producer),
            (Kind::Relay, true),
            (Kind::Rule, config.consumer == Ordering::Rule),
            (Kind::Apply, true),
        ];
        for (kind, shown) in kinds {
            if !shown {
                continue;
            }
            let lines = match (kind, &config.rule) {
                (Kind::Rule, Some(rule)) => rule
                    .sql()
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| Line {
                        db: Role::Consumer,
                        sql: l.trim_end().to_owned(),
                    })
                    .collect(),
                _ => runs
                    .iter()
                    .filter(|(k, _)| *k == kind)
                    .map(|(_, lines)| lines.clone())
                    .reduce(|a, b| merge(&a, &b))
                    .unwrap_or_default(),
            };
            if !lines.is_empty() {
                blocks.push(Block { kind, lines });
            }
        }
        Ok(Code { blocks })
    }

    /// What move `m` did, from the SQL its step logged: the lines of its block it ran, in order, and the line
    /// after which the process exited. The rule's block counts as run when the apply asked it.
    pub fn ran(&self, m: &Move, sql: &[SqlLine]) -> Ran {
        let Some(kind) = Kind::of(m) else {
            return Ran::default();
        };
        let asked_rule = sql.iter().any(|l| l.sql.starts_with("-- the rule"));
        let kind = if kind == Kind::Apply && asked_rule && self.block(Kind::Rule).is_some() {
            // The apply ran too; the rule is what the reader attacks, and its lines are the ones lit.
            Kind::Rule
        } else {
            kind
        };
        let Some(block) = self.block(kind) else {
            return Ran::default();
        };
        if kind == Kind::Rule {
            return Ran {
                kind: Some(kind),
                lines: (0..block.lines.len()).collect(),
                cut: None,
            };
        }
        let mut ran = Ran {
            kind: Some(kind),
            ..Ran::default()
        };
        let mut at = 0;
        for line in sql {
            if line.sql.starts_with("-- process exits") {
                ran.cut = ran.lines.last().copied();
                break;
            }
            if line.template.is_empty() {
                continue;
            }
            if let Some(i) = (at..block.lines.len())
                .find(|&i| block.lines[i].db == line.db && block.lines[i].sql == line.template)
            {
                ran.lines.push(i);
                at = i + 1;
            }
        }
        ran
    }

    pub fn block(&self, kind: Kind) -> Option<&Block> {
        self.blocks.iter().find(|b| b.kind == kind)
    }
}

/// A short history that runs each kind of move through its branches: flow A produced whole, its second event
/// relayed first (the apply waits at the gap), then the first, applied until idle, and a resend. The code under
/// attack is read from it (public so that a test replays the same history).
pub fn script(config: &Config) -> Vec<Move> {
    let ev = |seq| Ev { flow: 0, seq };
    let m = |action| Move {
        action,
        crash: None,
    };
    let mut moves: Vec<Move> = (1..=config.events)
        .map(|s| m(Action::Advance(ev(s))))
        .collect();
    let mut order: Vec<u8> = (1..=config.events).collect();
    if order.len() > 1 {
        order.swap(0, 1);
    }
    for s in order {
        moves.push(m(Action::Relay(ev(s))));
        moves.push(m(Action::Apply(0)));
    }
    moves.push(m(Action::Apply(0)));
    if config.resends > 0 {
        moves.push(m(Action::Resend(ev(1))));
        moves.push(m(Action::Apply(0)));
    }
    moves
}

/// Runs `moves` on fresh databases of `config`'s consumer, with the SQL log on: each move's kind and the
/// statements it ran, as written (values as `?`).
fn run(config: &Config, moves: &[Move]) -> Result<Vec<(Kind, Vec<Line>)>, String> {
    let mut session = Session::create(&Location::memory(), config.setup())?;
    for step in config.prelude() {
        session.step(&step);
    }
    session.set_sql_logging(true);
    let mut out = Vec::new();
    for m in moves {
        let step: Step = m.step(config);
        let report = session.step(&step);
        if let Some(kind) = Kind::of(m) {
            let lines = report
                .sql
                .iter()
                .filter(|l| !l.template.is_empty())
                .map(|l| Line {
                    db: l.db,
                    sql: l.template.clone(),
                })
                .collect();
            out.push((kind, lines));
        }
    }
    Ok(out)
}

/// The shortest sequence that holds both `a` and `b` in their orders: the statements of two runs of one kind
/// of move, each branch once.
fn merge(a: &[Line], b: &[Line]) -> Vec<Line> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::with_capacity(n + m));
    while i < n && j < m {
        if a[i] == b[j] {
            out.push(a[i].clone());
            (i, j) = (i + 1, j + 1);
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            out.push(a[i].clone());
            i += 1;
        } else {
            out.push(b[j].clone());
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::{merge, Block, Code, Kind, Line};
    use crate::checker::{Action, Move};
    use crate::protocol::{Role, SqlLine};

    fn lines(text: &str) -> Vec<Line> {
        text.split_whitespace()
            .map(|w| Line {
                db: Role::Consumer,
                sql: w.to_owned(),
            })
            .collect()
    }

    /// Whether `run` is `block` with lines left out.
    fn within(run: &[Line], block: &[Line]) -> bool {
        let mut rest = block.iter();
        run.iter().all(|l| rest.any(|k| k == l))
    }

    /// The longest common subsequence's length, by plain recursion (small inputs only).
    fn common(a: &[Line], b: &[Line]) -> usize {
        match (a.split_first(), b.split_first()) {
            (Some((x, ra)), Some((y, rb))) if x == y => 1 + common(ra, rb),
            (Some((_, ra)), Some((_, rb))) => common(ra, b).max(common(a, rb)),
            _ => 0,
        }
    }

    #[test]
    fn two_runs_merge_into_one_block_with_each_branch_once() {
        let merged = merge(
            &lines("BEGIN read gap COMMIT"),
            &lines("BEGIN read write mark COMMIT"),
        );
        assert_eq!(merged, lines("BEGIN read gap write mark COMMIT"));
        assert_eq!(merge(&lines("x c"), &lines("y x c")), lines("y x c"));
        assert_eq!(merge(&lines("b"), &lines("b x")), lines("b x"));
        assert_eq!(merge(&lines("b x"), &lines("b")), lines("b x"));
        // Every pair of runs of up to four statements over three words: both runs are in the block, which is as
        // short as any block holding both can be.
        let all: Vec<String> = (0..=4u32)
            .flat_map(|n| {
                (0..3u32.pow(n)).map(move |code| {
                    (0..n)
                        .map(|k| ["a", "b", "c"][(code / 3u32.pow(k) % 3) as usize])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
            })
            .collect();
        for a in &all {
            for b in &all {
                let (a, b) = (lines(a), lines(b));
                let merged = merge(&a, &b);
                assert!(within(&a, &merged) && within(&b, &merged), "{a:?} {b:?}");
                assert_eq!(
                    merged.len(),
                    a.len() + b.len() - common(&a, &b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    /// A statement a move runs twice lights the block's two lines, one each, in order; an exit cuts after the
    /// last line it ran.
    #[test]
    fn a_statement_run_twice_lights_two_lines() {
        let code = Code {
            blocks: vec![Block {
                kind: Kind::Apply,
                lines: lines("BEGIN read read COMMIT"),
            }],
        };
        let apply = Move {
            action: Action::Apply(0),
            crash: None,
        };
        let logged = |text: &str| -> Vec<SqlLine> {
            text.split_whitespace()
                .map(|w| SqlLine {
                    db: Role::Consumer,
                    sql: w.to_owned(),
                    template: w.to_owned(),
                })
                .collect()
        };
        let ran = code.ran(&apply, &logged("BEGIN read read COMMIT"));
        assert_eq!(
            (ran.kind, ran.lines, ran.cut),
            (Some(Kind::Apply), vec![0, 1, 2, 3], None)
        );
        let mut cut = logged("BEGIN read read");
        cut.push(SqlLine {
            db: Role::Consumer,
            sql: "-- process exits".into(),
            template: String::new(),
        });
        let ran = code.ran(&apply, &cut);
        assert_eq!((ran.lines, ran.cut), (vec![0, 1, 2], Some(2)));
    }
}
