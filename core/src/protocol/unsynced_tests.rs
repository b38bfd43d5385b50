//! The power cut on a file whose undo log is written by hand: what it keeps, and what a tear leaves.

use super::*;
use crate::real::Rng;

/// A power cut's choices from a seeded generator, as the power run makes them.
fn below(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut rng = Rng::new(seed);
    move |n| rng.below(n)
}

/// A file synced as `AAAA`, then written `BB` at 2 and extended by `CC` at 4: the two undo records the
/// layer would have logged, and a torn half record after them (a write killed mid-log).
fn setup(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("f.db");
    std::fs::write(&path, b"AABBCC").unwrap();
    let mut log = encode(4, 2, 2, b"AA", false);
    log.extend(encode(4, 4, 2, b"", false));
    log.extend(&encode(6, 0, 2, b"AA", false)[..20]);
    std::fs::write(log_path(&path), log).unwrap();
    path
}

#[test]
fn a_cut_keeps_the_synced_bytes_and_a_prefix_of_the_writes_after_them() {
    let dir = std::env::temp_dir().join(format!("outbox-unsynced-{}", std::process::id()));
    let mut seen = std::collections::BTreeMap::new();
    for seed in 0..40 {
        let path = setup(&dir);
        let kept = power_cut(std::slice::from_ref(&path), &mut below(seed), false).unwrap();
        assert_eq!(kept[0].unsynced, 2, "the torn record never happened");
        let bytes = std::fs::read(&path).unwrap();
        let want: &[u8] = match kept[0].kept {
            0 => b"AAAA",
            1 => b"AABB",
            _ => b"AABBCC",
        };
        assert_eq!(bytes, want, "kept {}", kept[0].kept);
        assert!(!log_path(&path).exists(), "the log goes with the cut");
        seen.insert(kept[0].kept, ());
    }
    assert_eq!(
        seen.len(),
        3,
        "none, some and all of the writes are each kept by some seed"
    );

    // Torn: a two-sector write over synced bytes reached the disk only in its first sector.
    let torn = (0..40).find_map(|seed| {
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        std::fs::write(&path, [b'B'; 1024]).unwrap();
        std::fs::write(log_path(&path), encode(1024, 0, 1024, &[b'A'; 1024], false)).unwrap();
        let kept = power_cut(std::slice::from_ref(&path), &mut below(seed), true).unwrap();
        kept[0].torn.then(|| std::fs::read(&path).unwrap())
    });
    let mut want = vec![b'B'; 512];
    want.extend([b'A'; 512]);
    assert_eq!(torn, Some(want));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record of the right length whose checksum does not match (a log block the kill left zeroed, or a byte
/// that changed) is not a write: the log ends before it. A file with no log, or no file at all, loses nothing.
#[test]
fn a_record_that_fails_its_checksum_ends_the_log_and_a_file_without_one_keeps_everything() {
    let dir = std::env::temp_dir().join(format!("outbox-unsynced-sum-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.db");
    let mut flipped = encode(4, 2, 2, b"\0A", false);
    *flipped.last_mut().unwrap() ^= 1;
    for tail in [vec![0u8; 40], flipped] {
        std::fs::write(&path, b"AABB").unwrap();
        let mut log = encode(4, 2, 2, b"AA", false);
        log.extend(&tail);
        std::fs::write(log_path(&path), log).unwrap();
        assert_eq!(read_log(&log_path(&path)).unwrap().len(), 1, "{tail:?}");
    }
    std::fs::remove_file(log_path(&path)).unwrap();
    // A file gone with its log left (SQLite deletes a WAL as the last connection closes) stays gone.
    let (absent, deleted) = (dir.join("absent.db"), dir.join("deleted.db-wal"));
    std::fs::write(log_path(&deleted), encode(0, 0, 4, b"", false)).unwrap();
    let kept = power_cut(&[path.clone(), absent, deleted], &mut below(1), true).unwrap();
    assert_eq!(
        kept.iter().map(|k| k.unsynced).collect::<Vec<_>>(),
        [0, 0, 1]
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"AABB");
    assert!(!dir.join("absent.db").exists() && !dir.join("deleted.db-wal").exists());

    // A torn write that grew the file keeps the sectors that reached the disk, and no more length.
    let grown = dir.join("g.db");
    let torn = (0..40).find_map(|seed| {
        std::fs::write(&grown, [[b'A'; 512], [b'B'; 512], [b'B'; 512]].concat()).unwrap();
        std::fs::write(log_path(&grown), encode(512, 512, 1024, &[], false)).unwrap();
        let kept = power_cut(std::slice::from_ref(&grown), &mut below(seed), true).unwrap();
        kept[0].torn.then(|| std::fs::read(&grown).unwrap())
    });
    assert_eq!(torn, Some([[b'A'; 512], [b'B'; 512]].concat()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A truncation is never torn (no file system leaves part of one): cut to nothing, the file comes back whole or
/// stays empty, under any seed.
#[test]
fn a_truncation_is_kept_whole_or_undone_whole() {
    let dir = std::env::temp_dir().join(format!("outbox-unsynced-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.db-wal");
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40 {
        std::fs::write(&path, b"").unwrap();
        std::fs::write(log_path(&path), encode(1024, 0, 1024, &[b'A'; 1024], true)).unwrap();
        let kept = power_cut(std::slice::from_ref(&path), &mut below(seed), true).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(!kept[0].torn, "seed {seed}");
        assert_eq!(bytes.len(), [1024, 0][kept[0].kept], "seed {seed}");
        assert!(bytes.iter().all(|b| *b == b'A'), "seed {seed}");
        seen.insert(kept[0].kept);
    }
    assert_eq!(
        seen.len(),
        2,
        "some seed keeps the truncation and some undoes it"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A log that is there but cannot be read is an error, not an empty log: the cut would otherwise keep every
/// unsynced write and claim that nothing was lost.
#[test]
fn a_log_that_cannot_be_read_fails_the_cut() {
    let dir =
        std::env::temp_dir().join(format!("outbox-unsynced-unreadable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A file where a directory should be: opening anything under it fails, and not with "not found".
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, b"").unwrap();
    let error = power_cut(&[blocker.join("f.db")], &mut below(1), false).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::NotADirectory);
    let _ = std::fs::remove_dir_all(&dir);
}
