//! A spec run on a PostgreSQL server as its isolation tester runs it: a connection for setup, teardown and the
//! watch, one per session; each step sent to its session's connection, and, while it has not answered, the watch
//! asks the server whether it waits on another session (`pg_isolation_test_session_is_blocked`, what the tester
//! asks). A step that waits is printed `<waiting ...>` and the next one runs; its answer is printed
//! `<... completed>` when it comes. The output is the tester's, line for line (`tests/interleave.rs` diffs it
//! against PostgreSQL 15's own `isolationtester`). The spec's tables live in a schema of their own, dropped
//! after the run, so that a reader's database is not written outside it; or, as the tester runs them, in
//! `public`, for a database made for the run ([`Tables::Public`]). The permutations are run by `engine.rs`,
//! as on SQLite; this file is what the server does differently: its connections and the lock watch.

use super::answer::{Answer, Now, Stopped};
use super::engine::{self, Store};
use super::ops::Memory;
use super::pg_session::{answer, connect, db_message, protocol, run, Conn, Work};
use super::print::ResultSet;
use super::run::{Permutation, Transcript};
use super::{Block, Isolation, Spec, Step};
use crate::protocol::pg::{shown, Place};
use postgres::Client;
use std::io::Write;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Where a spec's tables are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tables {
    /// A schema of the run's own, dropped after it: a reader's database is not written outside it.
    Private,
    /// `public`, as the tester runs a spec (plans name `public.t`, a session that switches role finds the
    /// tables): for a database made for the run, whose `public` the spec's teardown leaves as it found it.
    Public,
}

/// Runs `spec` on the server of `place`'s URL, writing the tester's output to `out`, and returns each
/// permutation's run. `timeout` bounds how long any one step may take to answer once the permutation needs it to.
pub fn run_spec(
    spec: &Spec,
    url: &str,
    isolation: Isolation,
    timeout: Duration,
    tables: Tables,
    out: &mut dyn Write,
) -> Result<Vec<Permutation>, Stopped> {
    let place = Place::fresh(url);
    let schema = match tables {
        Tables::Private => format!("{}_spec", place.prefix()),
        Tables::Public => "public".to_owned(),
    };
    let mut watch = place
        .connect(None, None)
        .map_err(|e| Stopped(crate::trace::session::stop_message(e)))?;
    let made = match tables {
        Tables::Private => {
            format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; ")
        }
        Tables::Public => String::new(),
    };
    watch
        .batch_execute(&format!(
            "SET client_min_messages = warning; {made}SET search_path = {schema}; SET statement_timeout = {}",
            // A setup or teardown that waits on a lock for ever ends too, as a step does.
            timeout.as_millis()
        ))
        .map_err(|e| Stopped(format!("{}: {}", shown(url), db_message(&e))))?;
    let mut transcript = Transcript::new(out);
    let result = run_sessions(
        spec,
        &place,
        &schema,
        &mut watch,
        isolation,
        timeout,
        &mut transcript,
    );
    // The spec's schema goes whatever happened; a session still waiting is cancelled first (in run_sessions).
    if tables == Tables::Private {
        let _ = watch.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
    }
    result.map(|()| transcript.permutations)
}

fn run_sessions(
    spec: &Spec,
    place: &Place,
    schema: &str,
    watch: &mut Client,
    isolation: Isolation,
    timeout: Duration,
    out: &mut Transcript<'_>,
) -> Result<(), Stopped> {
    let conns = spec
        .sessions
        .iter()
        .map(|s| Conn::open(place, schema, &s.name, isolation))
        .collect::<Result<Vec<_>, _>>()?;
    let pids: Vec<i32> = conns.iter().map(|c| c.pid).collect();
    let mut runner = Runner {
        place,
        schema,
        conns: &conns,
        pids: &pids,
        watch,
        timeout,
        forever: vec![None; spec.sessions.len()],
        pending: vec![Vec::new(); spec.sessions.len()],
    };
    let result = engine::run(spec, &mut runner, out);
    if result.is_err() {
        // A step that never answered: cancelled, so that the schema can be dropped.
        for conn in &conns {
            let _ = conn.cancel.cancel_query(postgres::NoTls);
        }
    }
    result
}

/// The PostgreSQL store the driver runs: the sessions' connections, and the watch's, which runs the spec's own
/// blocks and asks the server who waits.
struct Runner<'a> {
    place: &'a Place,
    schema: &'a str,
    conns: &'a [Conn],
    pids: &'a [i32],
    watch: &'a mut Client,
    timeout: Duration,
    /// Per session: whether a lock wait of its lasts until the lock is freed (no `lock_timeout` nor
    /// `statement_timeout` set), read before its setup in each permutation: `None` until read.
    forever: Vec<Option<bool>>,
    /// Per session: notifications that came with a setup or teardown, printed with its next step's answer, as
    /// the tester reads them only once a step is done.
    pending: Vec<Vec<(i32, String, String)>>,
}

impl Runner<'_> {
    /// Session `i`'s name, for the run's refusals.
    fn name(&self, i: usize) -> &str {
        &self.conns[i].name
    }

    fn gone(&self, i: usize) -> Stopped {
        Stopped(format!("session {}: its connection is gone", self.name(i)))
    }

    /// Sends `block` to session `i` and waits for its answer (setup and teardown of a session).
    fn ask(&mut self, i: usize, block: Block) -> Result<Answer, Stopped> {
        self.conns[i]
            .send
            .send(Work::Block(block))
            .map_err(|_| self.gone(i))?;
        let what = format!("session {}'s setup or teardown", self.name(i));
        let mut answer = self.answer_within(i, &what)?;
        self.pending[i].append(&mut answer.notifies);
        Ok(answer)
    }

    /// A step's answer with the notifications that came to its session, named as the tester names them.
    fn step_answer(&mut self, i: usize, mut answer: Answer) -> Answer {
        let mut notifies = std::mem::take(&mut self.pending[i]);
        notifies.append(&mut answer.notifies);
        for (pid, channel, payload) in notifies {
            let sender = match self.pids.iter().position(|p| *p == pid) {
                Some(s) => self.name(s).to_owned(),
                None => format!("PID {pid}"),
            };
            answer.notified.push(format!(
                "{}: NOTIFY \"{channel}\" with payload \"{payload}\" from {sender}",
                self.name(i)
            ));
        }
        answer
    }

    /// Whether session `i` has neither `lock_timeout` nor `statement_timeout`: `SHOW`, which takes no snapshot.
    fn timeouts_unset(&mut self, i: usize) -> Result<bool, Stopped> {
        let answer = self.ask(
            i,
            Block::Sql("SHOW lock_timeout; SHOW statement_timeout".into()),
        )?;
        Ok(answer.sets.len() == 2
            && answer
                .sets
                .iter()
                .all(|s| s.rows.first().and_then(|r| r[0].as_deref()) == Some("0")))
    }

    fn answer_within(&mut self, i: usize, what: &str) -> Result<Answer, Stopped> {
        match self.conns[i].answers.recv_timeout(self.timeout) {
            Ok(answer) => Ok(answer),
            Err(RecvTimeoutError::Timeout) => Err(Stopped(format!(
                "{what} timed out after {} seconds",
                self.timeout.as_secs()
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(self.gone(i)),
        }
    }
}

impl Store for Runner<'_> {
    fn forget(&mut self) {
        for conn in self.conns {
            let _ = conn.send.send(Work::Forget);
        }
        // Read again in this permutation: a step of the last may have set a timeout.
        self.forever.iter_mut().for_each(|f| *f = None);
    }

    /// On the watch's connection; one of protocol operations on a connection of its own, as the protocol's.
    fn block(&mut self, block: &Block, _: &str) -> Result<Answer, Stopped> {
        Ok(match block {
            Block::Ops { .. } => {
                let mut db = protocol(connect(self.place, self.schema, None)?, self.schema);
                run(&mut db, &mut Memory::default(), block)
            }
            Block::Sql(sql) => answer(self.watch.simple_query(sql)),
        })
    }

    fn setup(&mut self, i: usize, block: &Block) -> Result<Answer, Stopped> {
        // Asked before the setup, which may open a transaction whose snapshot a query after it would take: the
        // setup's own text then says whether it sets a timeout.
        let before = self.timeouts_unset(i)?;
        let sets = ["lock_timeout", "statement_timeout"]
            .iter()
            .any(|name| block.text().to_ascii_lowercase().contains(name));
        self.forever[i] = Some(before && !sets);
        let answer = self.ask(i, block.clone())?;
        match &answer.error {
            Some(e) => Err(Stopped(format!(
                "setup of session {} failed: {e}",
                self.name(i)
            ))),
            None => Ok(answer),
        }
    }

    fn teardown(&mut self, i: usize, block: &Block) -> Result<Option<Answer>, Stopped> {
        self.ask(i, block.clone()).map(Some)
    }

    /// Whether the lock waits of each session without a setup last until the lock is freed: nothing has been
    /// sent on its connection, so no transaction of its is open.
    fn ready(&mut self) -> Result<(), Stopped> {
        for i in 0..self.conns.len() {
            if self.forever[i].is_none() {
                self.forever[i] = Some(self.timeouts_unset(i)?);
            }
        }
        Ok(())
    }

    fn send(&mut self, i: usize, step: &Step) -> Result<(), Stopped> {
        self.conns[i]
            .send
            .send(Work::Block(step.sql.clone()))
            .map_err(|_| self.gone(i))
    }

    /// Waits until session `i`'s step answers, or the server says it waits on another session's lock. Checked
    /// every 10 ms, as the tester does.
    fn settle(&mut self, i: usize, step: &Step) -> Result<Now, Stopped> {
        let begun = Instant::now();
        loop {
            match self.conns[i]
                .answers
                .recv_timeout(Duration::from_millis(10))
            {
                Ok(answer) => return Ok(Now::Answered(self.step_answer(i, answer))),
                Err(RecvTimeoutError::Disconnected) => return Err(self.gone(i)),
                Err(RecvTimeoutError::Timeout) => {}
            }
            let blocked: bool = self
                .watch
                .query_one(
                    "SELECT pg_catalog.pg_isolation_test_session_is_blocked($1, $2)",
                    &[&self.pids[i], &self.pids],
                )
                .and_then(|r| r.try_get(0))
                .map_err(|e| Stopped(format!("the lock watch failed: {}", db_message(&e))))?;
            if blocked {
                return Ok(Now::Waiting);
            }
            if begun.elapsed() > self.timeout {
                return Err(Stopped(format!(
                    "step {} timed out after {} seconds",
                    step.name,
                    self.timeout.as_secs()
                )));
            }
        }
    }

    /// Blocked by sessions that are idle: only a later step can free it (the tester would wait out its
    /// timeout). It waits without a timeout, and every session holding what it waits for is one of the spec's,
    /// not among the `others` waiting (a deadlock may free a wait on those).
    fn freed_only_later(&mut self, i: usize, others: &[usize]) -> Result<bool, Stopped> {
        if self.forever[i] != Some(true) {
            return Ok(false);
        }
        let blockers: Vec<i32> = self
            .watch
            .query_one("SELECT pg_catalog.pg_blocking_pids($1)", &[&self.pids[i]])
            .and_then(|r| r.try_get(0))
            .map_err(|e| Stopped(format!("the lock watch failed: {}", db_message(&e))))?;
        let waits = |pid: &i32| others.iter().any(|&s| self.pids[s] == *pid);
        Ok(!blockers.is_empty() && blockers.iter().all(|b| self.pids.contains(b) && !waits(b)))
    }

    /// A waiting step's answer, however long the permutation's next step needs it.
    fn wait(&mut self, i: usize, step: &Step) -> Result<Answer, Stopped> {
        let answer = self.answer_within(i, &format!("step {}", step.name))?;
        Ok(self.step_answer(i, answer))
    }

    /// The waiting steps cancelled, and their answers (the cancellation's error) taken.
    fn abandon(&mut self, waiting: &[usize]) -> Result<(), Stopped> {
        for &s in waiting {
            let _ = self.conns[s].cancel.cancel_query(postgres::NoTls);
        }
        for &s in waiting {
            let what = format!("session {}'s cancelled step", self.name(s));
            self.answer_within(s, &what)?;
        }
        Ok(())
    }

    /// The runner's own ROLLBACK warns on a session with nothing open, which is not the spec's to print.
    fn roll_back(&mut self) -> Result<(), Stopped> {
        for i in 0..self.conns.len() {
            self.ask(i, Block::Sql("ROLLBACK".into()))?;
            if let Ok(mut said) = self.conns[i].notices.lock() {
                said.clear();
            }
        }
        Ok(())
    }

    fn read(&mut self, sql: &str) -> Result<ResultSet, String> {
        let answer = answer(self.watch.simple_query(sql));
        match (answer.error, answer.sets.into_iter().next()) {
            (None, Some(set)) => Ok(set),
            (Some(e), _) => Err(e),
            (None, None) => Err(format!("no rows from `{sql}`")),
        }
    }

    fn notices(&mut self, i: usize) -> Vec<String> {
        match self.conns[i].notices.lock() {
            Ok(mut said) => std::mem::take(&mut *said),
            Err(_) => Vec::new(),
        }
    }

    fn cannot(&self, who: &str, at_end: bool) -> String {
        if at_end {
            format!("session {who} still waits on a lock when the permutation ends")
        } else {
            format!("session {who} still waits on a lock that this permutation frees only later")
        }
    }
}

/// The server's version, as `SHOW server_version` says it (the recording names it).
pub fn server_version(url: &str) -> Result<String, Stopped> {
    let mut client = Place::fresh(url)
        .connect(None, None)
        .map_err(|e| Stopped(crate::trace::session::stop_message(e)))?;
    client
        .query_one("SHOW server_version", &[])
        .and_then(|r| r.try_get(0))
        .map_err(|e| Stopped(format!("{}: {}", shown(url), db_message(&e))))
}
