// The split's text rule (scripts/split-text.mjs) on small modules made to show each way a string can be reached:
// only a whole span of text that one part alone names moves; never one the primary names a string in (the code
// was seen to name a string and read its neighbour by an offset), nor text a word of the data names, nor text
// inside a string the primary names with its length. Each check fails without the rule it is named for (tried by
// hand on the rule taken out). Run by the test command.
import assert from 'node:assert/strict';
import { movableText } from './split-text.mjs';

const data = (at, text) => ` (data $d${at} (i32.const ${at}) "${text}")`;
// Each constant on a line of its own: two in a row are an address and its length, as Rust passes a `&str`.
const func = (name, ...consts) => ` (func $${name}\n${consts.map((c) => `  (i32.const ${c})`).join('\n')}\n )`;
const far = (name, addr) => ` (func $${name}\n  (call $f (i32.const ${addr}))\n )`;

function moved(items, parts) {
  const funcs = items.filter((it) => it.startsWith(' (func '));
  const partOf = new Map(Object.entries(parts).map(([i, p]) => [Number(i), p]));
  return movableText(items, funcs, partOf).runs.map((r) => [r.at, Buffer.from(r.bytes).toString(), r.part]);
}

// The span: the primary names "ab" (an address alone), the rest "cd" beside it and "ef" in a span of its own.
assert.deepEqual(
  moved([data(1000, 'abcd\\00ef'), far('primary', 1000), far('rest', 1002), far('rest2', 1005)], { 1: 1, 2: 1 }),
  [[1005, 'ef', 1]], 'a span the primary names a string in stays whole');

// The primary's strings with their length: "ab\0cd" named whole by the primary keeps "cd", the rest's start.
assert.deepEqual(moved([data(1000, 'ab\\00cd'), func('primary', 1000, 5), far('rest', 1003)], { 1: 1 }), [],
  'text inside a string the primary names with its length stays');

// A word of the data names "gh": who reads that word is not known, so it stays.
assert.deepEqual(moved([data(1000, 'gh'), data(2000, '\\e8\\03\\00\\00'), far('rest', 1000)], { 0: 1 }), [],
  'text a word of the data names stays');

// Named by both parts: neither may count on the other having been loaded.
assert.deepEqual(moved([data(1000, 'ef'), far('rest', 1000), far('history', 1000)], { 0: 1, 1: 0 }), [],
  'text two parts name stays');

// Named by nothing at its start (reached only by an offset): it stays.
assert.deepEqual(moved([data(1000, 'xyz'), far('rest', 1001)], { 0: 1 }), [], 'a span whose start nobody names stays');

console.log('split-text: 5 checks passed');
