//! Where a reader's progress is kept: `localStorage`, or, where the browser keeps nothing for the page (a
//! private window, an embed with storage blocked), this page view's memory, which the page says. Nothing leaves
//! the reader's machine but the file they export themselves.

use outbox_core::levels::Progress;
use std::cell::RefCell;

const KEY: &str = "outbox-playground:progress";

thread_local! {
    /// The fallback when there is no storage, and the last progress read or written either way.
    static MEMORY: RefCell<Option<Progress>> = const { RefCell::new(None) };
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The progress kept, and whether the browser keeps it beyond this page view. A stored text that cannot be read
/// (edited by hand) counts as none.
pub fn load() -> (Progress, bool) {
    let Some(storage) = storage() else {
        return (MEMORY.with_borrow(|m| m.clone().unwrap_or_default()), false);
    };
    match storage.get_item(KEY) {
        Ok(text) => (
            text.and_then(|t| Progress::parse(&t).ok())
                .unwrap_or_default(),
            true,
        ),
        Err(_) => (MEMORY.with_borrow(|m| m.clone().unwrap_or_default()), false),
    }
}

/// Keeps `progress`; `false` when only this page view has it.
pub fn save(progress: &Progress) -> bool {
    MEMORY.with_borrow_mut(|m| *m = Some(progress.clone()));
    storage().is_some_and(|s| s.set_item(KEY, &progress.to_json()).is_ok())
}

/// Changes the kept progress with `f` and keeps it.
pub fn update(f: impl FnOnce(&mut Progress)) -> bool {
    let (mut progress, _) = load();
    f(&mut progress);
    save(&progress)
}
