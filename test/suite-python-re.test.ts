/** The Python `re` syntax checker agrees with CPython's re.compile (differential test on a corpus). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkPythonRegex } from '../src/suites/regex/python-re.js';

export const CORPUS: string[] = [
  // valid in Python
  'abc', '^a+$', '(?P<n>\\d+) atoms', '(?P<n>a)(?P=n)', '(?i)abc', '(?i)(?m)^x$', '(?x) a b # comment\n c', '(?i:abc)d', '(?-i:abc)',
  '(?#comment)a', '(?=a)b', '(?!a)b', '(?<=ab)c', '(?<!a|b)c', '(?<=(?P<x>a))b', '(a)(?(1)b|c)', '(?P<g>a)?(?(g)b)', '(?>a+)b', 'a*+b', 'a++', 'a?+',
  '[]]', '[^]]', '[a-]', '[-a]', '[\\d-z]x'.replace('-z', ''), '[\\w.]+@[\\w.]+', '\\x41\\u00e9\\U0001F600', '\\0', '\\012', '\\141', '(a)\\1', '[\\1]', '[\\0]',
  'a{2}', 'a{2,}', 'a{,3}', 'a{2,3}?', 'a{}', 'a{', 'a{x}', 'a{2,x}', '{', '}', ']', 'x{2}{', '\\{', '\\.', '\\-', '\\ ', '\\#', '\\é', '[\\-]',
  '\\A\\Z\\b\\B', '\\N{EM DASH}', '(?s).', '(?a)\\w', '(?u)\\w', 'a|', '|', '()', '(?:)', 'a**'.slice(0, 2), '(?:a*)*', '(a*)*', '[[]', '[a&&b]',
  '(?P<n1>x)(?P<n2>y)\\2', '(?(1)a)(b)', 'é+', '😀+', '[😀-😂]', '\\t\\n\\r\\f\\v\\a', '(?<=\\d{3})x', '(?<=a{2,2})b', '(?<=(a))\\1',
  // invalid in Python
  '(', ')', 'a)', '(?P<n>a', '*a', '+', '?', 'a**', 'a*??', 'a{2}{3}', '^*', '\\b+', '\\q', '\\k<n>', '\\z', '[a', '[]', '[z-a]', '[\\d-z]', '[a-\\d]',
  '(?<n>a)', '(?P<1>a)', '(?P<n>a)(?P<n>b)', '(?P=n)', '(?P<n>a(?P=n))', '\\1', '(a\\1)', '(a)\\2', '(?<=a+)b', '(?<=a|bc)d', '(?<=a*)b', 'a{3,2}',
  'a(?i)b', 'x|(?i)y', '(?L)a', '(?au)a', '(?i-i:a)', '(?-a:x)', '(?z)a', '(?', '(?P', '(?Px)', '(?<', '(?#x', '\\', 'a\\', '\\x4', '\\u12', '\\U0011FFFF',
  '\\400', '[\\8]', '\\N', '\\N{', '(?(2)a|b)(c)', '(?(0)a)', '(?(x)a)', '(a)(?(1)a|b|c)', '(?<=(?P<x>a)(?P=x))b', '(?t:a)', '(?-t:a)', 'a{4294967295}',
  '(?i', '(?i:', '(?-', '(?-:a)', '(?i-:a)', '(?<=a(?(1)b))', '[\\A]', '[\\B]', '[\\Z]',
];

function pythonVerdicts(patterns: string[]): Array<{ ok: boolean; pos?: number; msg?: string }> | undefined {
  const py = spawnSync('python3', ['-c', `
import json, re, sys, warnings
warnings.simplefilter('ignore')
out = []
for p in json.load(sys.stdin):
    try:
        re.compile(p); out.append({'ok': True})
    except re.error as e:
        out.append({'ok': False, 'pos': len(p[:e.pos].encode('utf-16-le')) // 2 if e.pos is not None else None, 'msg': e.msg})
    except (OverflowError, ValueError) as e:
        out.append({'ok': False, 'msg': str(e)})
print(json.dumps(out))
`], { input: JSON.stringify(patterns), encoding: 'utf8', timeout: 20000 });
  if (py.status !== 0) return undefined;
  return JSON.parse(py.stdout);
}

const verdicts = pythonVerdicts(CORPUS);

describe('Python re syntax checker', () => {
  it.skipIf(!verdicts)('accepts and rejects exactly what CPython accepts and rejects', () => {
    const disagreements: string[] = [];
    CORPUS.forEach((p, i) => {
      const mine = checkPythonRegex(p);
      const py = verdicts![i]!;
      if (py.ok !== (mine === undefined)) disagreements.push(`${JSON.stringify(p)}: python ${py.ok ? 'accepts' : `rejects (${py.msg})`}, vaudit ${mine ? `rejects (${mine.message})` : 'accepts'}`);
      else if (!py.ok && mine && typeof py.pos === 'number' && py.pos !== mine.pos) disagreements.push(`${JSON.stringify(p)}: position ${mine.pos} vs python ${py.pos} (${py.msg})`);
    });
    expect(disagreements).toEqual([]);
  });

  it('has both valid and invalid patterns in the corpus', () => {
    const bad = CORPUS.filter((p) => checkPythonRegex(p));
    expect(bad.length).toBeGreaterThan(40);
    expect(CORPUS.length - bad.length).toBeGreaterThan(60);
  });

  it('reports Python messages for typical mistakes', () => {
    expect(checkPythonRegex('(?<year>\\d{4})')?.message).toBe('unknown extension ?<y');
    expect(checkPythonRegex('\\d+\\')?.message).toBe('bad escape (end of pattern)');
    expect(checkPythonRegex('[9-0]')?.message).toBe('bad character range 9-0');
  });

  it('rejects 496 nested groups as CPython does (RecursionError), and 20,000 without overflowing the stack', () => {
    const nest = (d: number, open: string) => `${open.repeat(d)}a${')'.repeat(d)}`;
    for (const open of ['(', '(?:', '(?=']) expect(checkPythonRegex(nest(495, open))).toBeUndefined();
    for (const open of ['(', '(?:', '(?=']) expect(checkPythonRegex(nest(496, open))?.message).toMatch(/more than 495 nested groups.*RecursionError/);
    expect(checkPythonRegex('('.repeat(20_000))?.message).toMatch(/RecursionError/);
    expect(checkPythonRegex(`${'(a'.repeat(20_000)}${')*'.repeat(20_000)}$`)?.message).toMatch(/RecursionError/);
  });
});

describe('Python re syntax checker, random differential', () => {
  // Deterministic PRNG (mulberry32) over an alphabet dense in metacharacters.
  let seed = 0x5eed;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const atoms = ['a', 'b', '1', '(', ')', '(?:', '(?P<n>', '(?P=n)', '(?<=', '(?<!', '(?=', '(?!', '(?i)', '(?x)', '(?i:', '(?>', '(?(1)', '[', ']', '^', '-',
    '*', '+', '?', '{2}', '{1,3}', '{3,1}', '|', '\\', '\\d', '\\1', '\\2', '\\b', '\\q', '\\x4', '.', '$', '#', ' ', '\n', '{', '}', ',', 'é'];
  const patterns = Array.from({ length: 3000 }, () => {
    const n = 1 + Math.floor(rand() * 7);
    let s = '';
    for (let i = 0; i < n; i++) s += atoms[Math.floor(rand() * atoms.length)];
    return s;
  });
  const py = pythonVerdicts(patterns);
  it.skipIf(!py)('agrees with CPython on 3000 random patterns', () => {
    const bad: string[] = [];
    patterns.forEach((p, i) => {
      const mine = checkPythonRegex(p);
      const v = py![i]!;
      if (v.ok !== (mine === undefined)) bad.push(`${JSON.stringify(p)}: python ${v.ok ? 'ok' : v.msg}, vaudit ${mine?.message ?? 'ok'}`);
    });
    expect(bad.slice(0, 20)).toEqual([]);
    const valid = py!.filter((v) => v.ok).length;
    expect(valid).toBeGreaterThan(300);
    expect(patterns.length - valid).toBeGreaterThan(300);
  });
});
