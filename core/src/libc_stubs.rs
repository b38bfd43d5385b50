//! wasm32 only: the two C library functions SQLite still names once its date and time functions are compiled
//! out (`SQLITE_OMIT_DATETIME_FUNCS` in `.cargo/config.toml`, for the page's size). SQLite then keeps only
//! `CURRENT_TIME`/`CURRENT_DATE`/`CURRENT_TIMESTAMP`, which call `gmtime` and `strftime`; the protocol never uses
//! them. Without these definitions the module would import them from `env` and fail to load. With them those
//! three SQL keywords yield an empty string instead of a time.

use std::ffi::{c_char, c_void};

#[no_mangle]
pub extern "C" fn gmtime(_time: *const i64) -> *mut c_void {
    std::ptr::null_mut()
}

#[no_mangle]
pub extern "C" fn strftime(
    out: *mut c_char,
    max: usize,
    _format: *const c_char,
    _tm: *const c_void,
) -> usize {
    if !out.is_null() && max > 0 {
        // SAFETY: SQLite passes a buffer of at least `max` bytes; an empty C string is written.
        unsafe { *out = 0 };
    }
    0
}

/// Statements the page's SQLite is built without (`SQLITE_OMIT_ALTERTABLE`, `_VIEW`, `_VIRTUALTABLE`,
/// `_ANALYZE`, `_VACUUM`, `_REINDEX`, `_PRAGMA` in `.cargo/config.toml`). The amalgamation's parser is
/// pre-generated with these statements in its grammar, so its actions still name the functions that build them;
/// these stand in for them. The protocol's SQL is fixed and uses none of them (the wasm32 core tests run on
/// this build), so none is ever called; if one were, the page would say which statement is missing instead of
/// running it as a no-op.
macro_rules! omitted_statements {
    ($($name:ident($($arg:ident: $ty:ty),*) => $what:literal;)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) {
            let _ = ($($arg),*);
            panic!(concat!("this build of SQLite has no ", $what));
        }
    )*};
}

type P = *mut c_void;

omitted_statements! {
    sqlite3AlterRenameTable(a: P, b: P, c: P) => "ALTER TABLE";
    sqlite3AlterRenameColumn(a: P, b: P, c: P, d: P) => "ALTER TABLE";
    sqlite3AlterDropConstraint(a: P, b: P, c: P, d: P) => "ALTER TABLE";
    sqlite3AlterAddConstraint(a: P, b: P, c: P, d: P, e: P, f: i32, g: P) => "ALTER TABLE";
    sqlite3AlterSetNotNull(a: P, b: P, c: P, d: P) => "ALTER TABLE";
    sqlite3AlterFinishAddColumn(a: P, b: P) => "ALTER TABLE";
    sqlite3AlterBeginAddColumn(a: P, b: P) => "ALTER TABLE";
    sqlite3AlterDropColumn(a: P, b: P, c: P) => "ALTER TABLE";
    sqlite3CreateView(a: P, b: P, c: P, d: P, e: P, f: P, g: i32, h: i32) => "CREATE VIEW";
    sqlite3VtabBeginParse(a: P, b: P, c: P, d: P, e: i32) => "CREATE VIRTUAL TABLE";
    sqlite3VtabFinishParse(a: P, b: P) => "CREATE VIRTUAL TABLE";
    sqlite3VtabArgInit(a: P) => "CREATE VIRTUAL TABLE";
    sqlite3VtabArgExtend(a: P, b: P) => "CREATE VIRTUAL TABLE";
    sqlite3Analyze(a: P, b: P, c: P) => "ANALYZE";
    sqlite3Vacuum(a: P, b: P, c: P) => "VACUUM";
    sqlite3Reindex(a: P, b: P, c: P) => "REINDEX";
    sqlite3Pragma(a: P, b: P, c: P, d: P, e: i32) => "PRAGMA";
}
