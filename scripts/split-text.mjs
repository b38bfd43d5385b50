// The text of a split module's data that goes with a part (scripts/split-wasm.mjs): the string literals only that
// part's functions name, found in the module's text as binaryen prints it, and the data segments' strings read
// and written back.

/** A wat string's bytes. */
export function unescape(text) {
  const out = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\') {
      out.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const e = text[++i];
    const named = { t: 9, n: 10, r: 13, '"': 34, "'": 39, '\\': 92 }[e];
    if (named !== undefined) out.push(named);
    else out.push(parseInt(text.slice(i, ++i + 1), 16));
  }
  return Uint8Array.from(out);
}

/** Bytes as a wat string. */
export function escape(bytes) {
  let out = '';
  for (const b of bytes) {
    out += b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${b.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/**
 * The text in the data that only one part's functions read, as `runs` of `{at, bytes, part}`: Rust's string
 * literals (never NUL-terminated) that only moved code names. Every address a function, a global or a 4-byte
 * word of the data names starts a run, which lasts to the next such address; a run is the part's when only that
 * part's functions name its start (a word of the data counts as the primary's, but for a `format!`'s pieces).
 * What moves is a whole span of text (bytes between two that are not text): the code was seen to name one
 * string and read its neighbour by an offset, so a span with any start of the primary's, or that overlaps a
 * string the primary names with its length, stays. Tables, vtables and C strings (with their NUL) never move.
 */
export function movableText(items, funcs, partOf) {
  const segments = new Map();
  const names = {};
  items.forEach((it, k) => {
    if (!it.startsWith(' (data ')) return;
    const m = /^ \(data (\$\S+ )?\(i32\.const (\d+)\) "(.*)"\)$/s.exec(it);
    if (!m) throw new Error(`split-wasm: unexpected data segment ${it.slice(0, 80)}`);
    segments.set(k, { at: Number(m[2]), bytes: unescape(m[3]) });
    names[k] = m[1] ?? '';
  });
  const all = [...segments.values()];
  const lo = Math.min(...all.map((s) => s.at));
  const hi = Math.max(...all.map((s) => s.at + s.bytes.length));
  const named = new Map();
  const name = (addr, by) => {
    if (addr < lo || addr >= hi) return;
    if (!named.has(addr)) named.set(addr, new Set());
    named.get(addr).add(by);
  };
  funcs.forEach((text, i) => {
    const by = partOf.has(i) ? partOf.get(i) : 'primary';
    for (const m of text.matchAll(/(?:i32\.const |offset=)(\d+)/g)) name(Number(m[1]), by);
  });
  for (const it of items) {
    if (!it.startsWith(' (func ') && !it.startsWith(' (data ')) for (const m of it.matchAll(/\b\d+\b/g)) name(Number(m[0]), 'primary');
  }
  // Words of the data that hold an address: `[from, to]`.
  const words = [];
  for (const { at, bytes } of all) {
    for (let o = (4 - (at % 4)) % 4; o + 4 <= bytes.length; o += 4) {
      const v = bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16) | (bytes[o + 3] << 24);
      if (v >= lo && v < hi) {
        words.push([at + o, v >>> 0]);
        if (!named.has(v >>> 0)) named.set(v >>> 0, new Set());
      }
    }
  }
  const starts = [...named.keys()].sort((a, b) => a - b);
  const runOf = (addr) => {
    let l = 0, h = starts.length - 1, found = -1;
    while (l <= h) { const m = (l + h) >> 1; if (starts[m] <= addr) { found = m; l = m + 1; } else h = m - 1; }
    return found;
  };
  // Text that a word of the data names stays: who reads the word is not known (a table or a struct is named at
  // its start by one function, at a field by another, or before its start by one that offsets an index).
  const isText = (b) => b >= 0x20 || b === 9 || b === 10;
  const owners = starts.map((a) => new Set(named.get(a)));
  // But for a `format!`'s pieces: a run of nothing but (address, length) pairs of text, named at its start by
  // one part's functions only (the code names such an array by its start, and all of it).
  const byteAt = (addr) => {
    const g = all.find((x) => addr >= x.at && addr < x.at + x.bytes.length);
    return g ? g.bytes[addr - g.at] : 0;
  };
  const word = (addr) => (byteAt(addr) | (byteAt(addr + 1) << 8) | (byteAt(addr + 2) << 16) | (byteAt(addr + 3) << 24)) >>> 0;
  const pieces = [];
  starts.forEach((from, k) => {
    const to = k + 1 < starts.length ? starts[k + 1] : hi;
    const by = [...owners[k]];
    pieces[k] = null;
    if (from % 4 || (to - from) % 8 || to === from || by.length !== 1 || by[0] === 'primary') return;
    for (let w = from; w < to; w += 8) {
      const [ptr, len] = [word(w), word(w + 4)];
      if (len === 0 || len > 4096 || ptr < lo || ptr + len > hi) return;
      for (let b = ptr; b < ptr + len; b++) if (!isText(byteAt(b))) return;
    }
    pieces[k] = by[0];
  });
  for (const [from, to] of words) {
    const r = runOf(from);
    owners[runOf(to)].add(r >= 0 && pieces[r] !== null ? pieces[r] : 'primary');
  }
  // The primary's strings that it names with their length are kept whole: no span that overlaps one moves.
  const kept = [];
  const fat = (ptr, len, primary) => {
    if (primary && len > 0 && len <= 4096 && ptr >= lo && ptr < hi) kept.push([ptr, ptr + len]);
  };
  funcs.forEach((text, i) => {
    for (const m of text.matchAll(/\(i32\.const (\d+)\)\n\s+\(i32\.const (\d+)\)/g)) fat(Number(m[1]), Number(m[2]), !partOf.has(i));
  });
  for (const { at, bytes } of all) {
    for (let o = (4 - (at % 4)) % 4; o + 8 <= bytes.length; o += 4) {
      const word = (k) => (bytes[k] | (bytes[k + 1] << 8) | (bytes[k + 2] << 16) | (bytes[k + 3] << 24)) >>> 0;
      const r = runOf(at + o);
      fat(word(o), word(o + 4), !(r >= 0 && pieces[r] !== null));
    }
  }
  const overlapsKept = (from, to) => kept.some(([a, b]) => a < to && from < b);
  // A span is a stretch of text between bytes that are not (or the segment's ends). The code may reach any
  // byte of a span from any address it names in it (it was seen to name one string and read the next by an
  // offset), so a span moves whole, and only when every start inside it is one part's and none the primary's.
  const runs = [];
  for (const [, { at, bytes }] of segments) {
    for (let from = 0; from < bytes.length;) {
      if (!isText(bytes[from])) { from++; continue; }
      let to = from;
      while (to < bytes.length && isText(bytes[to])) to++;
      const [a, b] = [at + from, at + to];
      const parts = new Set();
      for (let r = Math.max(runOf(a), 0); r < starts.length && starts[r] < b; r++) {
        // The run the span starts in began before it: its start names bytes before the span as well.
        for (const o of owners[r]) parts.add(o);
      }
      const [part] = parts;
      if (parts.size === 1 && part !== 'primary' && named.has(a) && !overlapsKept(a, b)) {
        runs.push({ at: a, bytes: bytes.slice(from, to), part });
      }
      from = to;
    }
  }
  return { segments, runs, names };
}

