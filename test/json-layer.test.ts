import { describe, expect, it } from 'vitest';
import { parseJsonDocument, decodeJsonString, embeddedOffsetMapper, splitPointer, joinPointer } from '../src/lang/json/index.js';

/** For every decoded unit, the raw text the map points at must decode to that unit. */
function checkMapping(jsonText: string, pointer: string) {
  const r = parseJsonDocument(jsonText);
  if (!r.ok) throw new Error(r.error.message);
  const ref = r.doc.values.get(pointer)!;
  const token = jsonText.slice(ref.start, ref.end);
  const { value, map } = decodeJsonString(token);
  expect(value).toBe(ref.value);
  const to = embeddedOffsetMapper(jsonText, ref);
  for (let i = 0; i < value.length; i++) {
    const rawStart = to(i);
    const rawEnd = to(i + 1);
    const raw = jsonText.slice(rawStart, rawEnd);
    // decoding the raw slice alone yields exactly the decoded unit(s) it produced
    const dec = JSON.parse(`"${raw}"`) as string;
    expect(dec.includes(value[i]!) || dec === value.slice(i, i + 1)).toBe(true);
  }
  expect(to(value.length)).toBe(ref.end - 1);
  expect(map[0]).toBe(1);
  return { value, to, ref };
}

describe('decodeJsonString', () => {
  it('maps plain strings one to one', () => {
    const { value, map } = decodeJsonString('"lambda k: k"');
    expect(value).toBe('lambda k: k');
    expect(Array.from(map)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('maps every simple escape to 2 raw units', () => {
    const raw = String.raw`"a\nb\"c\\d\/e\tf\bg\fh\ri"`;
    const { value, map } = decodeJsonString(raw);
    expect(value).toBe(JSON.parse(raw));
    expect(map[1]).toBe(2); // "\n" starts at raw 2
    expect(map[2]).toBe(4); // 'b'
    expect(map[3]).toBe(5); // '\"'
    expect(map[value.length]).toBe(raw.length - 1);
  });

  it('maps \\uXXXX to 6 raw units and surrogate pairs to 6 each', () => {
    const raw = String.raw`"x\u00e9y\ud83d\ude00z"`;
    const { value, map } = decodeJsonString(raw);
    expect(value).toBe('xéy😀z');
    expect(Array.from(map)).toEqual([1, 2, 8, 9, 15, 21, 22]);
  });

  it('maps raw non-BMP characters as 2 units each', () => {
    const raw = '"😀lambda"';
    const { value, map } = decodeJsonString(raw);
    expect(value).toBe('😀lambda');
    expect(map[2]).toBe(3);
  });

  it('never throws on invalid escapes', () => {
    expect(() => decodeJsonString(String.raw`"a\qb\u12"`)).not.toThrow();
  });
});

describe('embedded lambda offsets in a real document', () => {
  it('points at the exact characters after escapes and non-ASCII text', () => {
    const text = `{\n  "instruction": "Zeige das Molekül – ✓ 😀",\n  "evaluate": [{"type": "states",\n    "key": "lambda k: k.split(\\"\\\\n\\")[0] + '\\u00e9\\ud83d\\ude00' + bad_name"}]\n}\n`;
    const { value, to } = checkMapping(text, '/evaluate/0/key');
    const i = value.indexOf('bad_name');
    expect(text.slice(to(i), to(i + 'bad_name'.length))).toBe('bad_name');
    const j = value.indexOf('split(');
    expect(text.slice(to(j), to(j + 6))).toBe('split(');
    const q = value.indexOf('"');
    expect(text.slice(to(q), to(q + 1))).toBe('\\"');
    const nl = value.indexOf('\\n');
    expect(text.slice(to(nl), to(nl + 2))).toBe('\\\\n');
    const e = value.indexOf('é');
    expect(text.slice(to(e), to(e + 1))).toBe('\\u00e9');
    expect(text.slice(to(e + 1), to(e + 3))).toBe('\\ud83d\\ude00');
  });

  it('handles CRLF files and a BOM', () => {
    const text = '\ufeff{\r\n"key": "lambda x:\\r\\n x",\r\n"n": 1}\r\n';
    const r = parseJsonDocument(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ref = r.doc.values.get('/key')!;
    expect(text.slice(ref.start, ref.end)).toBe('"lambda x:\\r\\n x"');
    const to = embeddedOffsetMapper(text, ref);
    expect(text.slice(to(12), to(13))).toBe('x');
  });
});

describe('parseJsonDocument', () => {
  it('records every value by pointer with key ranges', () => {
    const text = '{"a/b": {"c~d": [1, "x", null, true]}, "": 2}';
    const r = parseJsonDocument(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const p = joinPointer(joinPointer('', 'a/b'), 'c~d');
    expect(p).toBe('/a~1b/c~0d');
    expect(splitPointer(p)).toEqual(['a/b', 'c~d']);
    const arr = r.doc.values.get(p)!;
    expect(text.slice(arr.start, arr.end)).toBe('[1, "x", null, true]');
    expect(text.slice(arr.keyStart, arr.keyEnd)).toBe('"c~d"');
    expect(r.doc.values.get(`${p}/1`)!.value).toBe('x');
    expect(r.doc.values.get('/')!.value).toBe(2);
    expect(r.doc.value).toEqual(JSON.parse(text));
  });

  it('reports duplicate members and keeps the last, like json.load', () => {
    const r = parseJsonDocument('{"value": 1, "value": 2}');
    expect(r.ok && r.doc.value).toEqual({ value: 2 });
    expect(r.ok && r.doc.duplicates.map((d) => [d.name, d.ignored.value, d.kept.value])).toEqual([['value', 1, 2]]);
  });

  it('keeps a __proto__ member as data', () => {
    const r = parseJsonDocument('{"__proto__": {"x": 1}}');
    expect(r.ok && Object.keys(r.doc.value as object)).toEqual(['__proto__']);
  });

  it.each([
    ['{"a": 1,}', 7, 'trailing comma'],
    ['[1, 2 ,\n]', 6, 'trailing comma in array'],
    ['{"a": 1 "b": 2}', 8, 'missing comma'],
    ['{"a": [1, 2}', 11, 'bracket'],
    ['{"a": "x\ny"}', 8, 'control character'],
    ['{"a": 1} x', 9, 'trailing text'],
    ['{"a": tru}', 6, 'bad literal'],
  ])('locates syntax errors exactly: %s', (text, offset) => {
    const r = parseJsonDocument(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.start).toBe(offset);
    expect(r.error.end).toBeGreaterThan(r.error.start);
    expect(r.error.message).toMatch(/^Invalid JSON: .+\.$/);
  });

  it('reports an empty file', () => {
    const r = parseJsonDocument('  \n');
    expect(r.ok).toBe(false);
  });
});

describe('positions agree with momoa on random documents', async () => {
  const { parse } = await import('@humanwhocodes/momoa');
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const strs = ['', 'a', 'lambda k: k["x"]', 'é😀\\"\n\t', '/~', '__proto__', 'x y'];
  const gen = (d: number): unknown => {
    const r = rand();
    if (d > 3 || r < 0.3) return [null, true, false, 0, -1.5e3, 12345678901, strs[Math.floor(rand() * strs.length)]][Math.floor(rand() * 7)];
    if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => gen(d + 1));
    const o: Record<string, unknown> = {};
    for (let k = 0; k < Math.floor(rand() * 4); k++) o[strs[Math.floor(rand() * strs.length)]! + k] = gen(d + 1);
    return o;
  };
  it('for every value and key of 300 documents', () => {
    for (let n = 0; n < 300; n++) {
      const text = JSON.stringify(gen(0), null, [0, 1, '\t', 4][n % 4] as number | string).replace(/,/g, n % 3 ? ',' : ' ,\r\n');
      const r = parseJsonDocument(text);
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      const want = new Map<string, [number, number, number?, number?]>();
      const walk = (node: any, p: string, key?: any) => {
        want.set(p, [node.range[0], node.range[1], key?.range[0], key?.range[1]]);
        if (node.type === 'Object') for (const m of node.members) walk(m.value, joinPointer(p, m.name.value), m.name);
        if (node.type === 'Array') node.elements.forEach((e: any, i: number) => walk(e.value, joinPointer(p, i)));
      };
      walk(parse(text, { ranges: true }).body, '');
      // positions located on demand (a second parse, asked pointer by pointer in a shuffled order,
      // before anything iterates the map) are the same, and so is the value
      const lazy = parseJsonDocument(text);
      if (!lazy.ok) continue;
      const order = [...want.keys()].sort(() => rand() - 0.5);
      for (const p of order) {
        const v = lazy.doc.values.get(p)!;
        expect([v.start, v.end, v.keyStart, v.keyEnd], p).toEqual(want.get(p));
        expect(v.value).toEqual(r.doc.values.get(p)!.value);
      }
      // pointers that are not in the document, or not spelled as joinPointer spells them
      for (const p of [...order.map((q) => `${q}/0`), ...order.map((q) => `${q}/x`), '/', 'a', '/~2', '/00', '/-1']) {
        const v = lazy.doc.values.get(p);
        expect(v && [v.start, v.end, v.keyStart, v.keyEnd], p).toEqual(want.get(p));
        expect(lazy.doc.values.has(p), p).toBe(want.has(p));
      }
      const got = new Map([...r.doc.values].map(([p, v]) => [p, [v.start, v.end, v.keyStart, v.keyEnd]]));
      expect(got).toEqual(want);
      // iterating after lookups: document order, and the references handed out before
      const before = order.map((p) => lazy.doc.values.get(p));
      expect([...lazy.doc.values.keys()]).toEqual([...want.keys()]);
      expect(order.map((p) => lazy.doc.values.get(p))).toEqual(before);
      order.forEach((p, k) => expect(lazy.doc.values.get(p)).toBe(before[k]));
    }
  });
});

describe('values located on demand', () => {
  it('hands out the decoded value itself, escaped keys and CRLF included', () => {
    const text = '\ufeff{\r\n  "a/b": {"c~d": [1, {"e": "\\u00e9"}]},\r\n  "k\\"q": [],\r\n  "n": {}\r\n}\r\n';
    const r = parseJsonDocument(text);
    if (!r.ok) throw new Error(r.error.message);
    const root = r.doc.value as Record<string, Record<string, unknown[]>>;
    const e = r.doc.values.get('/a~1b/c~0d/1')!;
    expect(e.value).toBe(root['a/b']!['c~d']![1]);
    expect(text.slice(e.start, e.end)).toBe('{"e": "\\u00e9"}');
    const q = r.doc.values.get('/k"q')!;
    expect(text.slice(q.keyStart, q.keyEnd)).toBe('"k\\"q"');
    expect(text.slice(q.start, q.end)).toBe('[]');
    expect(r.doc.values.get('/n/x')).toBeUndefined();
    expect(r.doc.values.get('/k"q/0')).toBeUndefined();
    expect(text.slice(r.doc.root.start, r.doc.root.end)).toBe(text.slice(1).trim());
  });

  it('answers as the whole scan does in a document with duplicated members', () => {
    const text = '{"a": {"x": 1, "y": [2]}, "b": 0, "a": {"x": 3}}';
    const r = parseJsonDocument(text);
    if (!r.ok) throw new Error(r.error.message);
    const x = r.doc.values.get('/a/x')!;
    expect([text.slice(x.start, x.end), x.value]).toEqual(['3', 3]); // the occurrence json.load keeps
    // only in the earlier occurrence: the scan records it, with no decoded value
    const y = r.doc.values.get('/a/y')!;
    expect([text.slice(y.start, y.end), y.value]).toEqual(['[2]', undefined]);
    expect(r.doc.values.get('/a/x')).toBe(x);
    expect(r.doc.duplicates.map((d) => [d.name, d.ignored.value, d.kept.value])).toEqual([['a', { x: 1, y: [2] }, { x: 3 }]]);
    expect([...r.doc.values.keys()]).toEqual(['', '/a', '/a/x', '/a/y', '/a/y/0', '/b']);
    // the earlier occurrence's member spelled with an escape
    const esc = parseJsonDocument('{"a": {"\\u0079": 1}, "a": {}}');
    expect(esc.ok && esc.doc.values.get('/a/y')?.start).toBe(17);
    expect(esc.ok && esc.doc.values.get('/a/z')).toBeUndefined();
  });

  it('reads 4,096 levels of nesting and refuses one more, without using the stack', () => {
    for (const open of ['[', '{"a":']) {
      const close = open === '[' ? ']' : '}';
      const doc = (n: number) => open.repeat(n) + '"\\u00e9"' + close.repeat(n);
      const deep = parseJsonDocument(doc(4_096));
      if (!deep.ok) throw new Error(deep.error.message);
      const step = open === '[' ? '/0' : '/a';
      const inner = deep.doc.values.get(step.repeat(4_096))!;
      expect(inner.value).toBe('é');
      expect(inner.start).toBe(open.length * 4_096);
      expect(deep.doc.values.size).toBe(4_097);
      expect(deep.doc.values.get(step.repeat(100))!.end).toBe(doc(4_096).length - 100);
      const tooDeep = parseJsonDocument(doc(4_097));
      expect(tooDeep.ok).toBe(false);
      expect(!tooDeep.ok && tooDeep.error.message).toMatch(/nested too deeply to read/);
    }
  });
});
