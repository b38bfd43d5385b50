//! A level's game as a reducer: the panel draws plain values and changes them only by dispatching an [`Act`];
//! [`Panel::reduce`] is the one place a game changes. What leaves the game — the player's history, the hint
//! worker's questions, the progress kept — is done by the component's effects from the new state, never by the
//! reducer, so state flows one way: reader → act → state → page.

use super::Answer;
use crate::ui::hints::Reply;
use outbox_core::checker::{Move, Play, Violation};
use outbox_core::levels::code::Code;
use outbox_core::levels::{Bet, Level};
use outbox_core::protocol::Boundary;
use outbox_core::trace::Trace;
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// What the panel shows: the game, or why there is none yet.
#[derive(Clone)]
pub enum Panel {
    Opening,
    /// The levels could not be fetched or read.
    Failed(String),
    /// The address names no level, or a challenge link that cannot be opened: said as it is.
    Refused(String),
    Ready(Box<Game>),
}

/// A search at one position, and how much of it has been revealed as a hint: 0 while it is only the page's own
/// look ahead (the dead end is said from it without being asked), then 1–3.
#[derive(Clone)]
pub struct Asked {
    pub history: Vec<Move>,
    pub stage: u8,
    pub answer: Answer,
}

/// Where the reader stands: the moves made, the moves offered, what broke, and the history as a trace.
#[derive(Clone)]
pub struct Position {
    pub history: Vec<Move>,
    pub offered: Vec<Move>,
    /// Those of `offered` that change nothing here, offered saying so.
    pub idle: Vec<Move>,
    pub broken: Option<Violation>,
    pub trace: Trace,
}

impl Position {
    fn of(play: &Play) -> Position {
        Position {
            history: play.history(),
            offered: play.moves(),
            idle: play.idle(),
            broken: play.broken().cloned(),
            trace: play.trace(),
        }
    }
}

/// A level of the list: its id, its title in both languages, and what it breaks (`None`: it holds), for counting
/// bets.
#[derive(Clone)]
pub struct Entry {
    pub id: String,
    pub title: [String; 2],
    pub breaks: Option<outbox_core::checker::Property>,
}

/// A level being played.
#[derive(Clone)]
pub struct Game {
    pub level: Level,
    /// The code under attack, read from a run of the level's own processes as it opened.
    pub code: Rc<Code>,
    /// 1-based, among the levels; none for a challenge.
    pub number: Option<usize>,
    /// Every level, in order (the list's entries).
    pub list: Vec<Entry>,
    /// The checker's game, which holds the position's databases: read and changed by the reducer alone.
    play: Rc<RefCell<Play>>,
    pub at: Position,
    /// Bumped by every change of the reader's history: the player loads the history once per value.
    pub moved: u32,
    /// The search from the start: the par, or the proof.
    pub start: Answer,
    pub hint: Option<Asked>,
    /// The exit chosen for the next move.
    pub armed: Option<Boundary>,
    pub bet: Option<Bet>,
    /// The reader said it breaks and may name the property, until the first move.
    pub choosing: bool,
    pub gave_up: bool,
    /// A move the page refused, said until the next move.
    pub error: Option<String>,
    /// What the last progress import did (imported, or why not).
    pub said: Option<(bool, String)>,
    /// The embed code *Copy embed code* wrote, and whether its height was measured.
    pub embed_code: Option<(String, bool)>,
    /// Bumped when the progress kept changed outside a move (the proof confirmed a bet): the list is read again.
    pub kept: u32,
}

/// Everything that changes a game.
pub enum Act {
    Opened(Box<Game>),
    Failed(String),
    Refused(String),
    /// The search from the start answered.
    Started(Answer),
    Make(Move),
    /// Takes the moves back to the first `n`.
    Back(usize),
    /// The player stands at step `pos` (time travel in the diagram): the moves after it are taken back, as
    /// *Undo* does, so that the game and the player's tables stand at the same step.
    PlayerAt(usize),
    /// *Hint*: the next stage of the hint at this position, searched for first if it is new.
    Hint,
    /// A hint's search answered, for the history it was asked at.
    Hinted(Vec<Move>, Answer),
    /// The bet: "it breaks" alone is a bet, which the reader may then narrow to a property.
    Bet(Bet),
    Arm(Option<Boundary>),
    GiveUp,
    Said(bool, String),
    EmbedCode(String, bool),
    /// The progress kept changed (the proof confirmed the reader's bet).
    Kept,
}

impl Game {
    pub fn new(
        level: Level,
        number: Option<usize>,
        list: Vec<Entry>,
        play: Play,
        code: Code,
    ) -> Game {
        Game {
            level,
            code: Rc::new(code),
            number,
            list,
            at: Position::of(&play),
            play: Rc::new(RefCell::new(play)),
            moved: 0,
            start: Answer::Searching,
            hint: None,
            armed: None,
            bet: None,
            choosing: false,
            gave_up: false,
            error: None,
            said: None,
            embed_code: None,
            kept: 0,
        }
    }

    /// The par: the checker's shortest break from the start, once found.
    pub fn par(&self) -> Option<usize> {
        match &self.start {
            Answer::Found(Reply::Break { moves, .. }) => Some(*moves),
            _ => None,
        }
    }

    /// The steps the player's history starts with that are no move (`set_synchronous` on a power level).
    pub fn prelude(&self) -> usize {
        self.level.config.prelude().len()
    }

    /// Whether the reader's position can no longer break anything within the level's bounds: the page's look
    /// ahead from here found nothing, on a level that does break.
    pub fn dead_end(&self) -> Option<u64> {
        // A level that nothing breaks from the start (the protocol's, or a challenge whose rule holds) has no dead
        // end to say: its proof is the answer.
        let proven = matches!(self.start, Answer::Found(Reply::Safe { .. }));
        if self.level.unbreakable || proven || self.at.broken.is_some() {
            return None;
        }
        match self
            .hint
            .as_ref()
            .filter(|h| h.history == self.at.history)?
            .answer
        {
            Answer::Found(Reply::Safe { states, .. }) => Some(states),
            _ => None,
        }
    }

    /// *I give up* has its answer on screen: the proof, or that it can be broken.
    pub fn answered(&self) -> bool {
        self.gave_up && matches!(self.start, Answer::Found(_))
    }

    /// The unbreakable level's proof is shown and confirms the reader's bet that it holds: the level is solved.
    pub fn held_right(&self) -> bool {
        self.level.unbreakable
            && self.answered()
            && self.bet == Some(Bet::Hold)
            && matches!(self.start, Answer::Found(Reply::Safe { .. }))
    }

    /// The hint being searched for, by the history it was asked at: the worker is asked for it.
    pub fn searching(&self) -> Option<Vec<Move>> {
        self.hint
            .as_ref()
            .filter(|h| h.answer == Answer::Searching && !h.history.is_empty())
            .map(|h| h.history.clone())
    }

    /// The history changed (or was asked to): the position read again, and the player to load it.
    fn moved(&mut self) {
        self.at = Position::of(&self.play.borrow());
        self.moved += 1;
    }

    fn act(&mut self, act: Act) {
        match act {
            Act::Started(answer) => {
                // A hint asked at the start before the search was done is this answer.
                if let Some(h) = self
                    .hint
                    .as_mut()
                    .filter(|h| h.history.is_empty() && h.answer == Answer::Searching)
                {
                    h.answer = answer.clone();
                }
                self.start = answer;
            }
            Act::Make(m) => {
                (self.error, self.hint, self.gave_up) = (None, None, false);
                self.choosing = false;
                if self.bet.is_none() {
                    self.bet = Some(Bet::Skip);
                }
                let made = self.play.borrow_mut().make(m);
                match made {
                    Ok(_) => self.moved(),
                    Err(e) => self.error = Some(e),
                }
                self.look_ahead();
            }
            Act::Back(n) => {
                self.error = self.play.borrow_mut().back_to(n).err();
                (self.hint, self.gave_up) = (None, false);
                self.moved();
                self.look_ahead();
            }
            // `reduce` passes it on only when the player stands before the game's last move.
            Act::PlayerAt(pos) => self.act(Act::Back(pos.saturating_sub(self.prelude()))),
            Act::Hint => self.hint(),
            Act::Hinted(history, answer) => {
                if let Some(h) = self.hint.as_mut().filter(|h| h.history == history) {
                    h.answer = answer;
                }
            }
            // A bet after the answer is on screen would be no bet.
            Act::Bet(_) if self.gave_up => {}
            Act::Bet(bet) => {
                self.choosing =
                    bet == Bet::Breaks || (self.choosing && matches!(bet, Bet::Break(_)));
                self.bet = Some(bet);
            }
            Act::Arm(exit) => self.armed = exit,
            Act::GiveUp => self.gave_up = true,
            Act::Said(ok, text) => self.said = Some((ok, text)),
            Act::EmbedCode(code, measured) => self.embed_code = Some((code, measured)),
            Act::Kept => self.kept += 1,
            Act::Opened(_) | Act::Failed(_) | Act::Refused(_) => {}
        }
    }

    /// After a move on a level that breaks, the page looks ahead from the new position as a hint would, unasked
    /// and unrevealed, so that a dead end is said as soon as it is one.
    fn look_ahead(&mut self) {
        if self.level.unbreakable || self.at.broken.is_some() || self.at.history.is_empty() {
            return;
        }
        self.ask(0);
    }

    fn hint(&mut self) {
        let history = self.at.history.clone();
        if let Some(h) = self.hint.as_mut().filter(|h| h.history == history) {
            if h.stage == 0 {
                h.stage = 1;
            } else if matches!(h.answer, Answer::Found(Reply::Break { .. })) {
                h.stage = (h.stage + 1).min(3);
            }
            return;
        }
        self.ask(1);
    }

    /// A search at the reader's position, revealed up to `stage`.
    fn ask(&mut self, stage: u8) {
        let history = self.at.history.clone();
        // Nothing breaks it from the start: then nothing does from any position after it, which the proof's
        // states already cover (the protocol's hint would otherwise be a whole proof again, 1.4 s in Chromium).
        let proven = matches!(self.start, Answer::Found(Reply::Safe { .. }));
        let answer = if self.level.unbreakable && history.is_empty() {
            Answer::Withheld
        } else if history.is_empty() || proven {
            self.start.clone()
        } else {
            Answer::Searching
        };
        self.hint = Some(Asked {
            history,
            stage,
            answer,
        });
    }
}

impl Reducible for Panel {
    type Action = Act;

    fn reduce(self: Rc<Self>, act: Act) -> Rc<Self> {
        match act {
            Act::Opened(game) => Rc::new(Panel::Ready(game)),
            Act::Failed(e) => Rc::new(Panel::Failed(e)),
            Act::Refused(e) => Rc::new(Panel::Refused(e)),
            Act::PlayerAt(pos) if !matches!(&*self, Panel::Ready(g) if pos < g.prelude() + g.at.history.len()) =>
            {
                // Already there: nothing changes, nothing is drawn again.
                self
            }
            act => match &*self {
                Panel::Ready(game) => {
                    let mut game = game.clone();
                    game.act(act);
                    Rc::new(Panel::Ready(game))
                }
                // Nothing to change before a game is open.
                _ => self,
            },
        }
    }
}
