//! A file layer that forgets what was not synced: an SQLite VFS, `unsynced`, over the operating system's.
//!
//! A killed process loses nothing the operating system holds, so `soak` cannot tell `synchronous=FULL` from
//! `OFF`. Through this layer every write to a database or WAL file goes to the file at once (reads stay plain),
//! but first its **undo record** — the bytes it overwrites and the file's size before — is appended to
//! `<file>-unsynced`. A sync of the file empties that log: from then on those writes are durable, whichever
//! process made them. A power cut ([`power_cut`], run by the parent once every worker is dead) keeps, for each
//! file on its own, the synced contents plus a prefix of the writes after it, from none to all, by undoing
//! the rest newest first; optionally the last write kept is torn (only a prefix of its sectors reached the
//! disk), as SQLite's own crash tests do. Shared memory (`-shm`) does not survive: it is deleted.
//!
//! What it does not model: directory entries (a created or deleted file is durable at once), writes reordered
//! within a file, and a failing disk. It never calls the real fsync: the machine does not lose power, only the
//! model does, and the runs stay fast.

use rusqlite::ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The layer's name, as a connection asks for it.
pub const NAME: &str = "unsynced";

/// Where a file's undo records wait for its next sync.
pub fn log_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push("-unsynced");
    PathBuf::from(name)
}

/// Registers the layer once per process (not as the default) and returns its name.
pub fn register() -> &'static str {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: the default VFS lives as long as the process; the copy is leaked for as long, and only its
        // name, file size, `xOpen` and `xDelete` differ (the others never read `pAppData` but `xOpen`, which
        // gets the real VFS).
        unsafe {
            let real = ffi::sqlite3_vfs_find(std::ptr::null());
            if real.is_null() {
                return;
            }
            let mut vfs = *real;
            vfs.pNext = std::ptr::null_mut();
            vfs.zName = c"unsynced".as_ptr();
            vfs.szOsFile = std::mem::size_of::<Layer>() as c_int;
            vfs.pAppData = real.cast();
            vfs.xOpen = Some(open);
            vfs.xDelete = Some(delete);
            ffi::sqlite3_vfs_register(Box::leak(Box::new(vfs)), 0);
        }
    });
    NAME
}

/// SQLite's file object for the layer: the real file behind it, and the undo log of a database or WAL file.
#[repr(C)]
struct Layer {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    log: Option<File>,
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    // Version 2: shared memory, but no memory-mapped reads (they would need xFetch).
    iVersion: 2,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: None,
    xUnfetch: None,
};

/// The real file's methods.
unsafe fn real(
    f: *mut ffi::sqlite3_file,
) -> (*mut ffi::sqlite3_file, &'static ffi::sqlite3_io_methods) {
    let real = (*f.cast::<Layer>()).real;
    (real, &*(*real).pMethods)
}

unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out: *mut c_int,
) -> c_int {
    let real_vfs = (*vfs).pAppData.cast::<ffi::sqlite3_vfs>();
    let real = ffi::sqlite3_malloc((*real_vfs).szOsFile).cast::<ffi::sqlite3_file>();
    if real.is_null() {
        return ffi::SQLITE_NOMEM;
    }
    std::ptr::write_bytes(real.cast::<u8>(), 0, (*real_vfs).szOsFile as usize);
    let Some(real_open) = (*real_vfs).xOpen else {
        ffi::sqlite3_free(real.cast());
        (*file).pMethods = std::ptr::null();
        return ffi::SQLITE_ERROR;
    };
    let rc = real_open(real_vfs, name, real, flags, out);
    if rc != ffi::SQLITE_OK || (*real).pMethods.is_null() {
        ffi::sqlite3_free(real.cast());
        (*file).pMethods = std::ptr::null();
        return if rc == ffi::SQLITE_OK {
            ffi::SQLITE_CANTOPEN
        } else {
            rc
        };
    }
    let logged = flags & (ffi::SQLITE_OPEN_MAIN_DB | ffi::SQLITE_OPEN_WAL) != 0 && !name.is_null();
    let log = if logged {
        let path = Path::new(std::ffi::OsStr::from_bytes(CStr::from_ptr(name).to_bytes()));
        match OpenOptions::new()
            .create(true)
            .append(true)
            .open(log_path(path))
        {
            Ok(log) => Some(log),
            Err(_) => {
                if let Some(close) = (*(*real).pMethods).xClose {
                    close(real);
                }
                ffi::sqlite3_free(real.cast());
                (*file).pMethods = std::ptr::null();
                return ffi::SQLITE_CANTOPEN;
            }
        }
    } else {
        None
    };
    std::ptr::write(
        file.cast::<Layer>(),
        Layer {
            base: ffi::sqlite3_file { pMethods: &METHODS },
            real,
            log,
        },
    );
    ffi::SQLITE_OK
}

unsafe extern "C" fn delete(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    sync_dir: c_int,
) -> c_int {
    let real_vfs = (*vfs).pAppData.cast::<ffi::sqlite3_vfs>();
    let rc = match (*real_vfs).xDelete {
        Some(delete) => delete(real_vfs, name, sync_dir),
        None => ffi::SQLITE_ERROR,
    };
    if !name.is_null() {
        let path = Path::new(std::ffi::OsStr::from_bytes(CStr::from_ptr(name).to_bytes()));
        let _ = std::fs::remove_file(log_path(path));
    }
    rc
}

unsafe extern "C" fn close(f: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real(f);
    let rc = m.xClose.map_or(ffi::SQLITE_OK, |close| close(r));
    ffi::sqlite3_free(r.cast());
    std::ptr::drop_in_place(std::ptr::addr_of_mut!((*f.cast::<Layer>()).log));
    rc
}

unsafe extern "C" fn read(f: *mut ffi::sqlite3_file, buf: *mut c_void, n: c_int, at: i64) -> c_int {
    let (r, m) = real(f);
    m.xRead
        .map_or(ffi::SQLITE_IOERR, |read| read(r, buf, n, at))
}

/// The real file's size, or `None` when it cannot be read.
unsafe fn size_of_real(f: *mut ffi::sqlite3_file) -> Option<i64> {
    let (r, m) = real(f);
    let mut size = 0i64;
    (m.xFileSize?(r, &mut size) == ffi::SQLITE_OK).then_some(size)
}

/// Appends the undo record of a change to `[at, end)` of a file now `old` bytes long: one `write` call, so a
/// SIGKILL leaves a record whole or absent (a short tail is ignored when the log is read).
unsafe fn record(f: *mut ffi::sqlite3_file, at: i64, end: i64, truncation: bool) -> c_int {
    let layer = f.cast::<Layer>();
    if (*layer).log.is_none() {
        return ffi::SQLITE_OK;
    }
    let Some(old) = size_of_real(f) else {
        return ffi::SQLITE_IOERR;
    };
    let kept = (end.min(old) - at).max(0) as usize;
    let mut pre = vec![0u8; kept];
    if kept > 0 {
        let (r, m) = real(f);
        let Some(read) = m.xRead else {
            return ffi::SQLITE_IOERR;
        };
        if read(r, pre.as_mut_ptr().cast(), kept as c_int, at) != ffi::SQLITE_OK {
            return ffi::SQLITE_IOERR_READ;
        }
    }
    let rec = encode(old as u64, at as u64, (end - at) as u64, &pre, truncation);
    match (*layer).log.as_mut().map(|log| log.write_all(&rec)) {
        Some(Err(_)) => ffi::SQLITE_IOERR_WRITE,
        _ => ffi::SQLITE_OK,
    }
}

unsafe extern "C" fn write(
    f: *mut ffi::sqlite3_file,
    buf: *const c_void,
    n: c_int,
    at: i64,
) -> c_int {
    let rc = record(f, at, at + i64::from(n), false);
    if rc != ffi::SQLITE_OK {
        return rc;
    }
    let (r, m) = real(f);
    m.xWrite
        .map_or(ffi::SQLITE_IOERR, |write| write(r, buf, n, at))
}

unsafe extern "C" fn truncate(f: *mut ffi::sqlite3_file, size: i64) -> c_int {
    if (*f.cast::<Layer>()).log.is_some() {
        let Some(old) = size_of_real(f) else {
            return ffi::SQLITE_IOERR_TRUNCATE;
        };
        // A shrink keeps the bytes it cuts; a growth keeps nothing, and its undo shrinks the file back.
        let rc = record(f, size.min(old), size.max(old), true);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    let (r, m) = real(f);
    m.xTruncate
        .map_or(ffi::SQLITE_IOERR, |truncate| truncate(r, size))
}

unsafe extern "C" fn sync(f: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    // Durable from here on, every process's writes to this file alike; no real fsync (see the module's note).
    match &(*f.cast::<Layer>()).log {
        Some(log) if log.set_len(0).is_err() => ffi::SQLITE_IOERR_FSYNC,
        _ => ffi::SQLITE_OK,
    }
}

unsafe extern "C" fn file_size(f: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    let (r, m) = real(f);
    m.xFileSize.map_or(ffi::SQLITE_IOERR, |fs| fs(r, size))
}

unsafe extern "C" fn lock(f: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    let (r, m) = real(f);
    m.xLock.map_or(ffi::SQLITE_IOERR, |lock| lock(r, level))
}

unsafe extern "C" fn unlock(f: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    let (r, m) = real(f);
    m.xUnlock
        .map_or(ffi::SQLITE_IOERR, |unlock| unlock(r, level))
}

unsafe extern "C" fn check_reserved_lock(f: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    let (r, m) = real(f);
    m.xCheckReservedLock
        .map_or(ffi::SQLITE_IOERR, |check| check(r, out))
}

unsafe extern "C" fn file_control(f: *mut ffi::sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    let (r, m) = real(f);
    m.xFileControl
        .map_or(ffi::SQLITE_NOTFOUND, |fc| fc(r, op, arg))
}

unsafe extern "C" fn sector_size(f: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real(f);
    m.xSectorSize.map_or(512, |ss| ss(r))
}

unsafe extern "C" fn device_characteristics(f: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real(f);
    m.xDeviceCharacteristics.map_or(0, |dc| dc(r))
}

unsafe extern "C" fn shm_map(
    f: *mut ffi::sqlite3_file,
    page: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    let (r, m) = real(f);
    m.xShmMap
        .map_or(ffi::SQLITE_IOERR, |map| map(r, page, size, extend, out))
}

unsafe extern "C" fn shm_lock(
    f: *mut ffi::sqlite3_file,
    at: c_int,
    n: c_int,
    flags: c_int,
) -> c_int {
    let (r, m) = real(f);
    m.xShmLock
        .map_or(ffi::SQLITE_IOERR, |lock| lock(r, at, n, flags))
}

unsafe extern "C" fn shm_barrier(f: *mut ffi::sqlite3_file) {
    let (r, m) = real(f);
    if let Some(barrier) = m.xShmBarrier {
        barrier(r);
    }
}

unsafe extern "C" fn shm_unmap(f: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    let (r, m) = real(f);
    m.xShmUnmap.map_or(ffi::SQLITE_OK, |unmap| unmap(r, delete))
}

/// One undo record: the file's size before the change, where the change started and how long it was, and the
/// bytes it overwrote (those below the old size).
struct Undo {
    old: u64,
    at: u64,
    len: u64,
    pre: Vec<u8>,
    /// A truncation, which is never torn (no file system leaves part of one).
    truncation: bool,
}

/// An undo record as the log holds it: five little-endian words (old size, offset, length, bytes kept with a
/// truncation's flag in the top bit, a checksum of the rest), then the bytes.
fn encode(old: u64, at: u64, len: u64, pre: &[u8], truncation: bool) -> Vec<u8> {
    let kept = pre.len() as u64 | if truncation { TRUNCATION } else { 0 };
    let mut rec = Vec::with_capacity(40 + pre.len());
    for word in [old, at, len, kept, checksum(old, at, len, kept, pre)] {
        rec.extend_from_slice(&word.to_le_bytes());
    }
    rec.extend_from_slice(pre);
    rec
}

const TRUNCATION: u64 = 1 << 63;

/// FNV-1a over a record: a record that is not whole (a kill mid-append) ends the log where it starts.
fn checksum(old: u64, at: u64, len: u64, kept: u64, pre: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in [old, at, len, kept]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .chain(pre.iter().copied())
    {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn read_log(path: &Path) -> std::io::Result<Vec<Undo>> {
    let mut bytes = Vec::new();
    match File::open(path) {
        Ok(mut f) => f.read_to_end(&mut bytes)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    let mut i = 0;
    let word = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
    while i + 40 <= bytes.len() {
        let (old, at, len, flags, sum) = (
            word(&bytes, i),
            word(&bytes, i + 8),
            word(&bytes, i + 16),
            word(&bytes, i + 24),
            word(&bytes, i + 32),
        );
        let kept = (flags & !TRUNCATION) as usize;
        let Some(pre) = bytes.get(i + 40..i + 40 + kept) else {
            break; // A record cut short by the kill: that write never happened.
        };
        if checksum(old, at, len, flags, pre) != sum {
            break;
        }
        out.push(Undo {
            old,
            at,
            len,
            pre: pre.to_vec(),
            truncation: flags & TRUNCATION != 0,
        });
        i += 40 + kept;
    }
    Ok(out)
}

/// What a power cut left of one file: how many writes it had not synced, and how many of them it kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    pub file: String,
    pub unsynced: usize,
    pub kept: usize,
    /// The last write kept reached the disk only in part.
    pub torn: bool,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} kept {} of {} unsynced writes",
            self.file, self.kept, self.unsynced
        )?;
        if self.torn {
            f.write_str(" (the last one torn)")?;
        }
        Ok(())
    }
}

/// The power goes out: each of `files` keeps what it had synced and a prefix of its later writes (the number
/// chosen by `below`, which answers a number under the one it is given, each file on its own), the last of them torn with `tear` at a sector boundary half the
/// time, and every `-shm` file goes. Run only when no process has the files open.
pub fn power_cut(
    files: &[PathBuf],
    below: &mut dyn FnMut(u64) -> u64,
    tear: bool,
) -> std::io::Result<Vec<Kept>> {
    let mut report = Vec::new();
    for path in files {
        let log = log_path(path);
        let undo = read_log(&log)?;
        let n = undo.len();
        let k = below(n as u64 + 1) as usize;
        let mut torn = false;
        if n > 0 && path.exists() {
            let mut file = OpenOptions::new().read(true).write(true).open(path)?;
            for u in undo[k..].iter().rev() {
                file.write_all_at(&u.pre, u.at)?;
                file.set_len(u.old)?;
            }
            if tear && k > 0 && !undo[k - 1].truncation && undo[k - 1].len > 512 && below(2) == 0 {
                let u = &undo[k - 1];
                // Some sectors reached the disk, not all: a write of one sector is whole or not at all.
                let sectors = u.len.div_ceil(512);
                let t = (1 + below(sectors.saturating_sub(1).max(1))) * 512;
                if let Some(rest) = u.pre.get(t as usize..) {
                    file.write_all_at(rest, u.at + t)?;
                }
                file.set_len(u.old.max(u.at + t))?;
                torn = t < u.len;
            }
            file.seek(SeekFrom::Start(0))?;
        }
        let _ = std::fs::remove_file(&log);
        let mut shm = path.as_os_str().to_owned();
        shm.push("-shm");
        let _ = std::fs::remove_file(PathBuf::from(shm));
        report.push(Kept {
            file: path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            unsynced: n,
            kept: k,
            torn,
        });
    }
    Ok(report)
}

#[cfg(test)]
#[path = "unsynced_tests.rs"]
mod tests;
