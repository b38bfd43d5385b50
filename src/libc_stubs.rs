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
