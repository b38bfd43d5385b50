//! The power cut on a file whose undo log is written by hand: what it keeps, and what a tear leaves.

use super::*;

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
        let kept = power_cut(std::slice::from_ref(&path), &mut Rng::new(seed), false).unwrap();
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
        let kept = power_cut(std::slice::from_ref(&path), &mut Rng::new(seed), true).unwrap();
        kept[0].torn.then(|| std::fs::read(&path).unwrap())
    });
    let mut want = vec![b'B'; 512];
    want.extend([b'A'; 512]);
    assert_eq!(torn, Some(want));
    let _ = std::fs::remove_dir_all(&dir);
}
