//! A PostgreSQL session of a spec's run (`pg.rs`): its connection, answering on a thread of its own, and how
//! a block's answer reads (the protocol's operations' or the statements', as the tester prints them).

use super::answer::{Answer, Stopped};
use super::ops::{self, Memory, Ran};
use super::print::ResultSet;
use super::{Block, Isolation};
use crate::protocol::db::Db;
use crate::protocol::pg::{PgConn, Place};
use crate::protocol::Role;
use postgres::{Client, SimpleQueryMessage};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// What a session's thread is asked to do.
pub(super) enum Work {
    Block(Block),
    /// A new permutation begins: the session is a new process, which remembers nothing it delivered.
    Forget,
}

/// One session's connection, answering on its own thread so that a step can wait on a lock while others run.
pub(super) struct Conn {
    pub(super) name: String,
    pub(super) pid: i32,
    pub(super) send: Sender<Work>,
    pub(super) answers: Receiver<Answer>,
    pub(super) cancel: postgres::CancelToken,
    /// What the server said besides its answers (`WARNING:  …`, `NOTICE:  …`), as libpq writes it, until printed.
    pub(super) notices: Notices,
}

pub(super) type Notices = Arc<Mutex<Vec<String>>>;

impl Conn {
    pub(super) fn open(
        place: &Place,
        schema: &str,
        name: &str,
        isolation: Isolation,
    ) -> Result<Conn, Stopped> {
        let notices = Notices::default();
        let mut client = connect(place, schema, Some(&notices))?;
        let setup = format!(
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {}",
            isolation.sql()
        );
        client
            .batch_execute(&setup)
            .map_err(|e| Stopped(format!("session {name}: {}", db_message(&e))))?;
        let pid: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| Stopped(format!("session {name}: {}", db_message(&e))))?;
        let cancel = client.cancel_token();
        let (send, work) = channel::<Work>();
        let (answer, answers) = channel();
        let mut db = protocol(client, schema);
        std::thread::spawn(move || {
            let mut memory = Memory::default();
            for work in work {
                let block = match work {
                    Work::Block(block) => block,
                    Work::Forget => {
                        memory = Memory::default();
                        continue;
                    }
                };
                if answer.send(run(&mut db, &mut memory, &block)).is_err() {
                    break;
                }
            }
        });
        Ok(Conn {
            name: name.to_owned(),
            pid,
            send,
            answers,
            cancel,
            notices,
        })
    }
}

/// `client` as the protocol's connection, its writers' locks named after the spec's schema.
pub(super) fn protocol(client: Client, schema: &str) -> Db {
    Db::on(PgConn::on(client, schema).into(), Role::Consumer)
}

/// A connection whose tables are the spec's schema's; a session's keeps what the server says besides its
/// answers in `notices`, as the tester prints them (the control connection's are not printed, as there).
pub(super) fn connect(
    place: &Place,
    schema: &str,
    notices: Option<&Notices>,
) -> Result<Client, Stopped> {
    let stopped = |e| Stopped(crate::trace::session::stop_message(e));
    let mut config = place.config(None, None).map_err(stopped)?;
    if let Some(notices) = notices {
        let notices = notices.clone();
        config.notice_callback(move |notice| {
            let mut text = format!("{}:  {}\n", notice.severity(), notice.message());
            if let Some(detail) = notice.detail() {
                text.push_str(&format!("DETAIL:  {detail}\n"));
            }
            if let Some(hint) = notice.hint() {
                text.push_str(&format!("HINT:  {hint}\n"));
            }
            if let Ok(mut said) = notices.lock() {
                said.push(text);
            }
        });
    }
    let mut client = place.connect_with(&config).map_err(stopped)?;
    client
        .batch_execute(&format!("SET search_path = {schema}"))
        .map_err(|e| Stopped(db_message(&e)))?;
    Ok(client)
}

/// A block's answer on the protocol's connection `db`: its protocol operations' or its statements'.
pub(super) fn run(db: &mut Db, memory: &mut Memory, block: &Block) -> Answer {
    let sql = match block {
        Block::Ops { ops, .. } => {
            return match ops::run_block(db, ops, 0, Answer::default(), memory, false) {
                Ran::Answered(answer) | Ran::Busy { so_far: answer, .. } => answer,
            }
        }
        Block::Sql(sql) => sql,
    };
    match db.conn().pg() {
        Ok(c) => {
            let mut answer = answer(c.simple_query(sql));
            // What arrived with it, as the tester reads it once the step is done.
            answer.notifies = c.notifications();
            answer
        }
        Err(stop) => Answer {
            error: Some(format!(
                "ERROR:  {}",
                crate::trace::session::stop_message(stop)
            )),
            ..Answer::default()
        },
    }
}

/// The statements of one block, each result set kept (the simple protocol: several statements in one block).
pub(super) fn answer(result: Result<Vec<SimpleQueryMessage>, postgres::Error>) -> Answer {
    match result {
        Ok(messages) => {
            let mut sets = Vec::new();
            let mut current: Option<ResultSet> = None;
            for message in messages {
                match message {
                    SimpleQueryMessage::RowDescription(columns) => {
                        current = Some(ResultSet {
                            columns: columns.iter().map(|c| c.name().to_owned()).collect(),
                            rows: Vec::new(),
                        });
                    }
                    SimpleQueryMessage::Row(row) => {
                        if let Some(set) = current.as_mut() {
                            set.rows.push(
                                (0..row.len())
                                    .map(|i| row.get(i).map(str::to_owned))
                                    .collect(),
                            );
                        }
                    }
                    SimpleQueryMessage::CommandComplete(_) => sets.extend(current.take()),
                    _ => {}
                }
            }
            Answer {
                sets,
                ..Answer::default()
            }
        }
        Err(e) => Answer {
            error: Some(db_message(&e)),
            ..Answer::default()
        },
    }
}

/// An error as the tester prints it: the severity, two spaces, the primary message.
pub(super) fn db_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}:  {}", db.severity(), db.message()),
        None => format!("ERROR:  {e}"),
    }
}
