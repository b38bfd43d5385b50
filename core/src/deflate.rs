//! A small raw DEFLATE compressor (RFC 1951) for share links: greedy LZ77 over a 32 KiB window, one block with
//! the fixed Huffman codes. It packs a trace's JSON to about a fifth of its size — a little larger than zlib's
//! best, in a few hundred bytes of wasm instead of miniz's compressor and its tables, and synchronously, so a
//! link is ready inside the click that asks for it (Safari lets a page write the clipboard only then). Any
//! inflater reads it; the page's is miniz's, with the link limits.

/// Bits written least significant first, as DEFLATE packs them.
struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= value << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, which DEFLATE stores most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        self.put(code.reverse_bits() >> (32 - len), len);
    }

    /// A literal byte or an end/length symbol (0–287) in the fixed code.
    fn symbol(&mut self, s: u32) {
        match s {
            0..=143 => self.code(0x30 + s, 8),
            144..=255 => self.code(0x190 + s - 144, 9),
            256..=279 => self.code(s - 256, 7),
            _ => self.code(0xc0 + s - 280, 8),
        }
    }
}

/// The base of each length code 257–285 and of each distance code 0–29; their extra bits follow from the
/// bases' spacing.
const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

const WINDOW: usize = 32 * 1024;
const MAX_MATCH: usize = 258;
const HASH_BITS: u32 = 14;

/// Raw DEFLATE of `data`.
pub fn compress(data: &[u8]) -> Vec<u8> {
    let mut bits = Bits {
        out: Vec::with_capacity(data.len() / 3 + 16),
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // the last block
    bits.put(1, 2); // fixed Huffman codes
                    // The most recent position of each 3-byte hash, plus one (0: none).
    let mut head = vec![0u32; 1 << HASH_BITS];
    let hash = |i: usize| {
        let v = u32::from(data[i]) | u32::from(data[i + 1]) << 8 | u32::from(data[i + 2]) << 16;
        (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
    };
    let mut i = 0;
    while i < data.len() {
        let mut best = (0, 0);
        if i + 3 <= data.len() {
            let h = hash(i);
            let candidate = head[h] as usize;
            head[h] = i as u32 + 1;
            if candidate > 0 && i - (candidate - 1) <= WINDOW {
                let from = candidate - 1;
                let limit = MAX_MATCH.min(data.len() - i);
                let len = (0..limit)
                    .take_while(|&k| data[from + k] == data[i + k])
                    .count();
                if len >= 3 {
                    best = (len, i - from);
                }
            }
        }
        let (len, dist) = best;
        if len == 0 {
            bits.symbol(u32::from(data[i]));
            i += 1;
            continue;
        }
        let l = LENGTH_BASE
            .iter()
            .rposition(|&b| usize::from(b) <= len)
            .unwrap_or(0);
        bits.symbol(257 + l as u32);
        bits.put(
            (len - usize::from(LENGTH_BASE[l])) as u32,
            u32::from(LENGTH_EXTRA[l]),
        );
        let d = DIST_BASE
            .iter()
            .rposition(|&b| usize::from(b) <= dist)
            .unwrap_or(0);
        bits.code(d as u32, 5);
        bits.put(
            (dist - usize::from(DIST_BASE[d])) as u32,
            u32::from(DIST_EXTRA[d]),
        );
        // Remember the positions inside the match too, so later text can refer to them.
        for k in i + 1..(i + len).min(data.len().saturating_sub(2)) {
            head[hash(k)] = k as u32 + 1;
        }
        i += len;
    }
    bits.symbol(256);
    if bits.n > 0 {
        bits.out.push(bits.acc as u8);
    }
    bits.out
}

#[cfg(test)]
mod tests {
    use super::compress;
    use miniz_oxide::inflate::decompress_to_vec;

    /// The experiments' packed bytes, all twelve together.
    const CEILING: usize = 10_581;

    #[test]
    fn what_it_packs_inflates_back() {
        let mut cases: Vec<Vec<u8>> = vec![
            vec![],
            b"a".to_vec(),
            b"abcabcabcabcabcabc".to_vec(),
            vec![b'x'; 100_000],
            (0..70_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            // A repeat one byte beyond the window's reach, which a match must not refer to.
            [&b"abc"[..], &[b'z'; 32_766], b"abc"].concat(),
        ];
        cases.extend(
            crate::experiments::ALL
                .iter()
                .map(|e| e.text.as_bytes().to_vec()),
        );
        for data in cases {
            let packed = compress(&data);
            assert_eq!(
                decompress_to_vec(&packed).unwrap(),
                data,
                "{} bytes",
                data.len()
            );
            // Nothing after the end of the block: a link cut by one character is refused, not read short.
            assert!(
                decompress_to_vec(&packed[..packed.len() - 1]).is_err(),
                "{} bytes",
                data.len()
            );
        }
        // A repeat from 20 KB back is found: the second copy of noise costs almost nothing.
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        let noise: Vec<u8> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        let twice = [&noise[..], &noise[..]].concat();
        assert!(
            compress(&twice).len() < compress(&noise).len() * 11 / 10,
            "{} and {}",
            compress(&twice).len(),
            compress(&noise).len()
        );
        // Matches reach back across the whole window, however far into the input: a run of one byte packs to
        // under 1 %.
        let run = vec![b'x'; 100_000];
        assert!(
            compress(&run).len() * 100 < run.len(),
            "{}",
            compress(&run).len()
        );
        // The twelve experiments' links are no longer than they were when this was written (a ceiling that only
        // falls: a change to the matching that makes them longer must say why here).
        let total: usize = crate::experiments::ALL
            .iter()
            .map(|e| compress(e.text.as_bytes()).len())
            .sum();
        assert!(total <= CEILING, "{total} bytes");
        // A trace packs well: the experiments' JSON to under a third.
        let text = crate::experiments::ALL[8].text.as_bytes();
        assert!(
            compress(text).len() * 3 < text.len(),
            "{} of {}",
            compress(text).len(),
            text.len()
        );
    }
}
