//! What the page's address asks for: `?embed` (no page chrome), `preset=N` (the article's experiment N, loaded
//! as the page starts, at its section's moment or at `step=N`), `view=a,b` (only these panels, for an embed that
//! fits one section of an article), `level=N` (break-it level N, or its id) and `lang=zh|en`.
//! Anything else is ignored and named in a notice; nothing in the address can stop the page.

use outbox_core::experiments;

outbox_core::words! {
    /// A part of the page an embed may show.
    pub enum Panel {
        Controls = "controls",
        /// The crash picker and Restart, without the other controls.
        Crash = "crash",
        Timeline = "timeline",
        Producer = "producer",
        Wire = "wire",
        Consumer = "consumer",
        Diagram = "diagram",
        Log = "log",
        Sql = "sql",
        Experiments = "experiments",
        Share = "share",
        Explorer = "explorer",
        Checker = "checker",
        Postgres = "postgres",
    }
}

/// What an embed shows when its address names no view: the player, without the page's tools.
const EMBED_DEFAULT: [Panel; 8] = [
    Panel::Controls,
    Panel::Timeline,
    Panel::Producer,
    Panel::Wire,
    Panel::Consumer,
    Panel::Diagram,
    Panel::Log,
    Panel::Sql,
];

/// The tools below the player, which stand beside the session rather than show it: the experiments, share,
/// the two searches and the interleavings recorded on PostgreSQL.
pub const TOOLS: [Panel; 5] = [
    Panel::Experiments,
    Panel::Share,
    Panel::Explorer,
    Panel::Checker,
    Panel::Postgres,
];

/// The address, read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Address {
    pub embed: bool,
    /// The experiment to load, 0-based.
    pub preset: Option<usize>,
    /// The panels `view=` named, in the order named.
    pub view: Option<Vec<Panel>>,
    /// `lang=zh|en`: the page's language, over the remembered one and the browser's (`www/page-start.js`
    /// reads it before the module starts; here it is only checked, so a wrong one is named).
    pub lang: Option<crate::ui::i18n::Lang>,
    /// `step=N`: the position a preset opens at, instead of its section's moment.
    pub step: Option<usize>,
    /// `level=N`: the break-it level to open (its number or id, checked once the levels are fetched); a
    /// challenge link (`#level=…`) opens its own level and sets this to `challenge`.
    pub level: Option<String>,
    /// What was ignored, as the reader wrote it, with why.
    pub ignored: Vec<String>,
}

impl Address {
    /// Reads `search` (`?embed&preset=3&view=wire,consumer`).
    pub fn parse(search: &str) -> Address {
        let mut a = Address::default();
        // One `?` only, as `page-start.js` reads it: `??embed` names a parameter `?embed`, which is unknown.
        for part in search.strip_prefix('?').unwrap_or(search).split('&') {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let value = value.replace("%2C", ",").replace("%2c", ",");
            match key {
                "" => {}
                "embed" => a.embed = true,
                "preset" => match value.parse::<usize>() {
                    Ok(n) if (1..=experiments::ALL.len()).contains(&n) => a.preset = Some(n - 1),
                    _ => a
                        .ignored
                        .push(format!("preset={value} (1–{})", experiments::ALL.len())),
                },
                "view" => {
                    let mut panels = Vec::new();
                    for word in value.split(',').filter(|w| !w.is_empty()) {
                        match Panel::from_name(word) {
                            Some(p) if !panels.contains(&p) => panels.push(p),
                            Some(_) => {}
                            None => a.ignored.push(format!("view={word}")),
                        }
                    }
                    if !panels.is_empty() {
                        a.view = Some(panels);
                    }
                }
                "lang" => match crate::ui::i18n::Lang::from_tag(&value) {
                    Some(lang) => a.lang = Some(lang),
                    None => a.ignored.push(format!("lang={value} (en, zh)")),
                },
                "level" if !value.is_empty() && value.len() <= 40 => a.level = Some(value),
                "step" => match value.parse::<usize>() {
                    Ok(n) => a.step = Some(n),
                    Err(_) => a.ignored.push(format!("step={value} (0, 1, 2, …)")),
                },
                other => a.ignored.push(other.to_owned()),
            }
        }
        if a.preset.is_none() {
            if let Some(n) = a.step.take() {
                a.ignored.push(format!("step={n} (with preset=)"));
            }
        }
        // A preset opens at its section's moment, not at its end: a view of its session gets time travel too.
        if let (Some(_), Some(view)) = (a.preset, a.view.as_mut()) {
            if !view.contains(&Panel::Timeline) && view.iter().any(|p| !TOOLS.contains(p)) {
                view.insert(0, Panel::Timeline);
            }
        }
        a
    }

    /// The page's own address.
    pub fn of_page() -> Address {
        let location = web_sys::window().map(|w| w.location());
        let search = location.as_ref().and_then(|l| l.search().ok());
        let mut a = Address::parse(&search.unwrap_or_default());
        let hash = location.and_then(|l| l.hash().ok()).unwrap_or_default();
        if hash.starts_with("#level=") {
            a.level = Some("challenge".into());
        }
        a
    }

    /// Whether the page shows `panel`: what `view=` names; in an embed without one, the player; else all.
    pub fn shows(&self, panel: Panel) -> bool {
        // A level offers its own moves: the player's controls and the tools stand aside.
        let controls = matches!(panel, Panel::Controls | Panel::Crash | Panel::Timeline);
        if self.level.is_some() && (controls || TOOLS.contains(&panel)) {
            return false;
        }
        match &self.view {
            Some(view) => view.contains(&panel),
            None => !self.embed || EMBED_DEFAULT.contains(&panel),
        }
    }

    /// Whether the page shows any part of the session itself (the player, its diagram, its log or SQL), whose
    /// status line (the latest step, the invariant) belongs with it; not in a view of the experiments or the
    /// tools alone.
    pub fn shows_session(&self) -> bool {
        Panel::ALL
            .into_iter()
            .filter(|p| !TOOLS.contains(p))
            .any(|p| self.shows(p))
    }

    /// `view=…` as the address spells it, for the embed code (the embed's default when none was named).
    pub fn view_param(&self) -> Option<String> {
        self.view
            .as_ref()
            .map(|v| v.iter().map(|p| p.name()).collect::<Vec<_>>().join(","))
    }
}
