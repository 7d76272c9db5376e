/**
 * `--cache` for parsed Python (issue 14): the plain trees of the sources a run parsed, kept in one file
 * of the cache folder (`trees.cache`) and keyed by the SHA-1 of the text, so a later run rebuilds the
 * tree of an unchanged text from its flat form (`decodeTree`, a few per cent of the cost) instead of
 * parsing it and copying the parser's tree across into JS node by node. The whole-run entry of `--cache`
 * serves a run in which nothing changed; this serves the files that did not change in a run in which
 * something did (one edited file re-parses one file).
 *
 * The trees are the same either way: a hit is the tree a parse of that text made (same types, fields,
 * ranges, flags and depth; `test/tree-cache.test.ts`), and node ids are given in the order of need as
 * for a parse. The file is valid only for the stamp it was written with (vaudit's code, the grammar's
 * version and the parser build): anything else is a miss, as is a corrupt or foreign file.
 *
 * File layout: int32 magic, int32 header length in bytes, the header (JSON: format, stamp, SHA-1 of
 * the nodes, type and field names, and per entry its key, first int, int count and error flag),
 * padding to 4 bytes, then the entries' nodes (`flat-tree.ts` layout) back to back. It is rewritten
 * only after a run that parsed something new: this run's trees first, then earlier ones while they
 * fit `MAX_INTS`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { writeAtomic } from '../../core/write-atomic.js';
import { decodeTree, encodePlainTree, FlatNameTable, flatNodeCount, type FlatTree } from './flat-tree.js';
import { MAX_ANALYSED_NODES, type PyNode } from './tree.js';

const MAGIC = 0x31525456; // "VTR1", little-endian
/** 2: punctuation tokens left out of the trees (`DROPPED_TOKENS`, tree.ts). */
const FORMAT = 2;
/** Ints kept in the file (4 per node, ≈ 25 nodes per line: about 20 MB of Python, a 64 MB file). */
const MAX_INTS = 16_000_000;

/** Byte offset of the nodes after a header of `jsonBytes` bytes (magic, length, JSON, padding to 4). */
const bodyStart = (jsonBytes: number) => 8 + jsonBytes + ((4 - ((8 + jsonBytes) % 4)) % 4);

interface Header {
  format: number;
  stamp: string;
  /** SHA-1 of the nodes that follow: a damaged file is a miss, never a wrong tree */
  sum: string;
  types: string[];
  fields: string[];
  /** key, first int, int count, 1 when the tree holds an ERROR or MISSING node */
  entries: Array<[string, number, number, 0 | 1]>;
}

/** Per run (`--debug`): trees rebuilt from the file, texts parsed and stored, entries the file held. */
export const treeCacheStats = { hits: 0, stored: 0, entries: 0 };

interface State {
  file: string;
  stamp: string;
  loaded: boolean;
  /** Trees by key: from the file (`nodes` a view of its buffer) or parsed this run. */
  trees: Map<string, FlatTree>;
  /** Keys asked for this run (they are written first). */
  used: Set<string>;
  names: FlatNameTable;
  typeIds: Map<string, number>;
  fieldIds: Map<string, number>;
  dirty: boolean;
}

let state: State | undefined;

/**
 * Keep parsed trees across runs in `file`, valid for `stamp` (vaudit's code; the grammar's version and
 * the parser build are added at the first parse). `undefined` stops using a file (the trees of this run are dropped).
 */
export function useTreeCacheFile(file: string | undefined, stamp = ''): void {
  // the nodes are written in the machine's byte order; every platform with a prebuilt parser is little-endian
  state = file === undefined || endianness() !== 'LE' ? undefined : {
    file,
    stamp,
    loaded: false,
    trees: new Map(),
    used: new Set(),
    names: new FlatNameTable(),
    typeIds: new Map(),
    fieldIds: new Map(),
    dirty: false,
  };
  if (state) treeCacheStats.hits = treeCacheStats.stored = treeCacheStats.entries = 0;
}

let grammarMemo: string | undefined;
function grammarVersion(): string {
  if (grammarMemo === undefined) {
    try {
      const require = createRequire(import.meta.url);
      grammarMemo = String((JSON.parse(readFileSync(require.resolve('tree-sitter-python/package.json'), 'utf8')) as { version?: unknown }).version);
    } catch {
      grammarMemo = 'unknown';
    }
  }
  return grammarMemo;
}

function keyOf(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

function nameId(map: Map<string, number>, list: (string | undefined)[], name: string, limit: number): number {
  let id = map.get(name);
  if (id === undefined) {
    id = list.length === 0 ? 1 : list.length;
    if (id >= limit) throw new Error(`tree cache: more than ${limit} names`);
    map.set(name, id);
    list[id] = name;
  }
  return id;
}

function load(s: State, parserKind: string): void {
  if (s.loaded) return;
  s.loaded = true;
  s.stamp = `${s.stamp}\0${grammarVersion()}\0${parserKind}`;
  let buf: Buffer;
  try {
    buf = readFileSync(s.file);
  } catch {
    return; // no file yet
  }
  try {
    if (buf.length < 8 || buf.readInt32LE(0) !== MAGIC) return;
    const len = buf.readInt32LE(4);
    const h = JSON.parse(buf.toString('utf8', 8, 8 + len)) as Header;
    if (h.format !== FORMAT || h.stamp !== s.stamp || !Array.isArray(h.types) || !Array.isArray(h.fields) || !Array.isArray(h.entries)) return;
    const start = bodyStart(len);
    const n = (buf.length - start) >> 2;
    if (createHash('sha1').update(buf.subarray(start, start + n * 4)).digest('base64') !== h.sum) return;
    // a view when the body is aligned for an Int32Array (a read file of this size has a buffer of its own), else a copy
    const at = buf.byteOffset + start;
    const ints = at % 4 === 0 ? new Int32Array(buf.buffer, at, n) : new Int32Array(buf.buffer.slice(at, at + n * 4));
    h.types.forEach((t, i) => { if (t) { s.names.types[i] = t; s.typeIds.set(t, i); } });
    h.fields.forEach((f, i) => { if (f) { s.names.fields[i] = f; s.fieldIds.set(f, i); } });
    for (const [key, at, count, err] of h.entries) {
      if (typeof key !== 'string' || !(at >= 0 && count > 0 && at + count <= ints.length && count % 4 === 0)) continue;
      s.trees.set(key, { nodes: ints.subarray(at, at + count), withErrors: err === 1 });
    }
    treeCacheStats.entries = s.trees.size;
  } catch {
    // a corrupt file is a miss; the names it may have half-set are overwritten by a clean table
    s.trees.clear();
    s.names = new FlatNameTable();
    s.typeIds.clear();
    s.fieldIds.clear();
  }
}

/**
 * The plain tree of `text`: rebuilt from the cache file when it holds it, else `parse(text)`, which is
 * then stored for the next run. Without a cache in use, `parse(text)`.
 */
export function cachedParse(text: string, parse: (text: string) => PyNode, parserKind: string): PyNode {
  const s = state;
  if (!s) return parse(text);
  load(s, parserKind);
  const key = keyOf(text);
  s.used.add(key);
  const flat = s.trees.get(key);
  if (flat) {
    try {
      const root = decodeTree(flat, text, s.names);
      treeCacheStats.hits++;
      return root;
    } catch {
      s.trees.delete(key); // a damaged entry: parse again and replace it
    }
  }
  const root = parse(text);
  try {
    const flat = encodePlainTree(root, {
      type: (n) => nameId(s.typeIds, s.names.types, n, 65_536),
      field: (n) => nameId(s.fieldIds, s.names.fields, n, 32_768),
    });
    // a tree over the node limit is not analysed (its analysis is of an empty module): keeping it would only
    // hold and write megabytes that push useful entries out (counted on the encoding: no second walk)
    if (flatNodeCount(flat) > MAX_ANALYSED_NODES) return root;
    s.trees.set(key, flat);
    s.dirty = true;
    treeCacheStats.stored++;
  } catch {
    // a tree that cannot be encoded is simply not kept
  }
  return root;
}

/** Write the cache file when this run parsed something new. */
export function saveTreeCache(): void {
  const s = state;
  if (!s?.dirty) return;
  const order = [...s.used, ...[...s.trees.keys()].filter((k) => !s.used.has(k))];
  const entries: Header['entries'] = [];
  const parts: Int32Array[] = [];
  let total = 0;
  for (const k of order) {
    const t = s.trees.get(k);
    if (!t || total + t.nodes.length > MAX_INTS) continue;
    entries.push([k, total, t.nodes.length, t.withErrors ? 1 : 0]);
    parts.push(t.nodes);
    total += t.nodes.length;
  }
  const chunks = parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength));
  const sum = createHash('sha1');
  for (const c of chunks) sum.update(c);
  const header: Header = { format: FORMAT, stamp: s.stamp, sum: sum.digest('base64'), types: [...s.names.types].map((t) => t ?? ''), fields: [...s.names.fields].map((f) => f ?? ''), entries };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(bodyStart(json.length));
  head.writeInt32LE(MAGIC, 0);
  head.writeInt32LE(json.length, 4);
  json.copy(head, 8);
  try {
    writeAtomic(s.file, [head, ...chunks]);
    s.dirty = false;
  } catch {
    // an unwritable cache folder only costs speed
  }
}
