/** ReDoS analysis of Python regexes: translation fidelity (checked against CPython) and recheck verdicts. */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePythonRegex, checkPythonRegex } from '../src/suites/regex/python-re.js';
import { toEcmaScript } from '../src/suites/regex/ecmascript.js';
import { analyseRedos, redosStats } from '../src/suites/regex/redos.js';
import { runCli } from './helpers/run-cli.js';
import { tempDir } from './helpers/temp-dir.js';

const PATTERNS = [
  'abc', '^a+$', '(?P<n>\\d+) atoms', '(?P<n>a)(?P=n)', '(?i)abc', '(?im)^x$', '(?x) a b # c\n c', '(?i:ab)c', '(?s:a.)b', 'a.b', '(?s)a.b',
  '(?=a)\\w', '(?!a)\\w', '(?<=ab)c', '(?<!a|b)c', '[]]', '[^]]x', '[a-]+', '[\\w.]+@[\\w.]+', '\\x41\\u00e9', '\\0', '(a)\\1', 'a{2}', 'a{2,}', 'a{,3}',
  'a{2,3}?', 'a{}', 'x{', '\\Aab\\Z', '\\bab\\B', '^$', 'a$', '(?m)a$', '(?i)[a-c]+', '(?i)É', 'é+', '[0-9]+(?:\\.[0-9]+)?', '\\s+\\S', '\\W\\D',
  '^(?:ANS|WAIT)\\s+(.+)$', '(?i)\\\\begin\\{document\\}', '(a|b)*?c', '(?:x|y){1,2}z', '(?m)^\\d+$', '[^\\n]*\\n',
];
const INPUTS = ['', 'abc', 'ABC', 'aab', 'xabcx', 'a\nb', 'ab\n', 'c', 'ac', 'bc', 'aaa', '12 atoms', '3.14', 'é', 'É', 'x@y.z', 'ANS 109.03', 'WAIT 5',
  '\\begin{document}', 'x\ny\n', 'zz', 'aa', 'a{}', 'x{', '\n', 'ab c', '__', 'xyz', '12\n34'];

function pythonSpans(patterns: string[], inputs: string[]): Array<Array<[number, number] | null>> | undefined {
  const py = spawnSync('python3', ['-c', `
import json, re, sys
d = json.load(sys.stdin)
out = []
for p in d['p']:
    r = re.compile(p)
    row = []
    for s in d['s']:
        m = r.search(s)
        row.append([m.start(), m.end()] if m else None)
    out.append(row)
print(json.dumps(out))
`], { input: JSON.stringify({ p: patterns, s: inputs }), encoding: 'utf8', timeout: 20000 });
  if (py.status !== 0) return undefined;
  return JSON.parse(py.stdout);
}

const spans = pythonSpans(PATTERNS, INPUTS);

describe('Python → ECMAScript translation', () => {
  it('all corpus patterns are valid Python', () => {
    expect(PATTERNS.filter((p) => checkPythonRegex(p))).toEqual([]);
  });

  it.skipIf(!spans)('matches the same spans as CPython re.search on sample inputs', () => {
    const diffs: string[] = [];
    PATTERNS.forEach((p, i) => {
      const t = toEcmaScript(parsePythonRegex(p));
      if (!t.ok) {
        diffs.push(`${p}: ${t.reason}`);
        return;
      }
      const re = new RegExp(t.source, t.flags);
      INPUTS.forEach((s, j) => {
        const m = re.exec(s);
        const mine = m ? [m.index, m.index + m[0].length] : null;
        const want = spans![i]![j] ?? null;
        if (JSON.stringify(mine) !== JSON.stringify(want)) diffs.push(`${JSON.stringify(p)} on ${JSON.stringify(s)}: ${JSON.stringify(mine)} vs python ${JSON.stringify(want)} (es: ${t.source})`);
      });
    });
    expect(diffs).toEqual([]);
  });

  it('reports constructs without an ECMAScript equivalent instead of dropping them', () => {
    for (const p of ['(?>a+)b', 'a++', '(a)?(?(1)b|c)']) {
      const t = toEcmaScript(parsePythonRegex(p));
      expect(t.ok).toBe(false);
    }
  });
});

describe('analyseRedos', () => {
  it('flags exponential backtracking, including through Python-only syntax', () => {
    for (const p of ['^(a+)+$', '^(?P<w>\\w+\\s?)*$', '(?i)^(a|A)*$', '(?x) ( a + ) + $', '^(\\d|\\d\\d)+$']) {
      const r = analyseRedos(p);
      expect(r.status, p).toBe('vulnerable');
      if (r.status === 'vulnerable') expect(r.complexity, p).toBe('exponential');
    }
  });

  it('says safe only for patterns that are safe', () => {
    expect(analyseRedos('abc')).toEqual({ status: 'safe', by: 'prefilter' });
    expect(analyseRedos('^(?:ANS|WAIT) [0-9]{1,3}$').status).toBe('safe');
    expect(analyseRedos('^[a-z]+@[a-z]+\\.com$')).toEqual({ status: 'safe', by: 'prefilter' });
    expect(analyseRedos('^(a|b)*c$')).toEqual({ status: 'safe', by: 'prefilter' });
    expect(analyseRedos('^(?:a*b)*c$')).toEqual({ status: 'safe', by: 'recheck' });
  });

  it('never calls untranslatable or invalid patterns safe', () => {
    expect(analyseRedos('(?>a+)+b').status).toBe('notAnalysed');
    expect(analyseRedos('(?<n>a)').status).toBe('invalid');
  });

  it('caches by pattern', () => {
    const before = redosStats.recheckCalls;
    analyseRedos('^(a+)+$');
    analyseRedos('^(a+)+$');
    expect(redosStats.recheckCalls).toBe(before);
  });
});

describe('pre-filter soundness (belowThreshold vs recheck)', async () => {
  const { belowThreshold } = await import('../src/suites/regex/redos.js');
  const { checkSync } = (await import('node:module')).createRequire(import.meta.url)('recheck') as typeof import('recheck');
  const CASES = [
    'rows:\\s+(\\d+)', '(?P<atoms>\\d+) atoms, (?P<bonds>\\d+) bonds', '^\\s*(\\w+)\\s*=\\s*(.*?)\\s*$', 'foo.*bar.*baz', '\\s*#\\s*(.*?)\\s*$',
    '^(a+)+$', 'a*a*a*', '^a*b*c*$', 'x\\d+y\\d+z\\d+', '\\d+\\d+\\d+', '^[a-z]+@[a-z]+\\.com$', '(\\w+\\s?)*', 'ANS (\\S+)', '^ANS\\s+(.+)$',
    '(?m)^cols:\\s+(?P<c>\\d+)$', '.*a.*a.*a', '(ab)+c', '(?i)A+a+A+', '[^,]*,[^,]*,[^,]*', 'a+b+a+b+', '\\S+\\s+\\S+\\s+\\S+',
    // loops over alternations and optional groups holding loops (the screen decides these without recheck when it can)
    '^key\\("((?:[^"]|\\\\")+)"=(.*)$', '^(?:[^"]|\\\\.)*"$', '^(a|a)*$', '^(a|ab|b)*c$', '^(?:ab|cd)+$', '^(a|aa)+b$',
    '([A-Z]{1,2})(\\d+)(?:-([A-Z]{1,2})(\\d+))?', '^(?:\\w+\\s?)+$', '^(?:x[0-9]{1,3}|y)+;(\\d+)?$', '(?i)^(?:a|A)+$',
    '^(?:\\d+\\.){3}\\d+$', '(?:a+)?(?:a+)?(?:a+)?b', '^(?:[^,]+,){0,3}.*x$',
  ];
  it('never skips a pattern recheck would report', () => {
    const wrong: string[] = [];
    for (const p of CASES) {
      const parsed = parsePythonRegex(p);
      const t = toEcmaScript(parsed, { exactEol: false });
      if (!t.ok) continue;
      for (const minDegree of [2, 3]) {
        if (!belowThreshold(parsed, minDegree)) continue;
        const d = checkSync(t.source, t.flags, { timeout: 5000 });
        const degree = d.status === 'vulnerable' ? (d.complexity.type === 'exponential' ? Infinity : d.complexity.degree) : 0;
        if (d.status === 'unknown' || degree >= minDegree) wrong.push(`${p} (min ${minDegree}): recheck ${d.status} ${degree}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60000);

  it('skips the common linear and quadratic verifier patterns', () => {
    for (const p of ['rows:\\s+(\\d+)', '(?P<atoms>\\d+) atoms, (?P<bonds>\\d+) bonds', '^ANS\\s+(.+)$', 'Output written on (?P<pdf>[^ ]+)']) {
      expect(belowThreshold(parsePythonRegex(p), 3), p).toBe(true);
    }
    expect(belowThreshold(parsePythonRegex('^(a+)+$'), 3)).toBe(false);
    expect(belowThreshold(parsePythonRegex('.*a.*a.*a'), 3)).toBe(false);
  });
});

describe('regex-redos in the CLI: recheck off the hot path', () => {
  const run = (dir: string, args: string[]) => runCli(['check', '.', '--rule', 'regex-redos', '--format', 'json', '--debug', ...args], { cwd: dir });
  const setup = () => {
    const dir = tempDir('vaudit-redos-');
    // one pattern the screen decides (linear), one only recheck decides (a loop holding a loop)
    writeFileSync(path.join(dir, 'vaudit.config.json'), JSON.stringify({ rules: { 'regex-redos': 'error' } }));
    writeFileSync(path.join(dir, 'verify.py'), 'import re\n\n\ndef ok(log):\n    return re.search(r"^(\\w+\\s?)*$", log) and re.match(r"^rows: (\\d+)$", log)\n');
    return dir;
  };

  it('without --cache: recheck runs in the process and nothing is written in the checked tree', () => {
    const dir = setup();
    const r = run(dir, []);
    expect(JSON.parse(r.stdout).findings.map((f: { ruleId: string }) => f.ruleId)).toEqual(['regex-redos']);
    expect(r.stderr).toMatch(/regex analysis: 2 patterns, 1 safe by the structural screen, 1 analysed by recheck/);
    expect(readdirSync(dir).sort()).toEqual(['vaudit.config.json', 'verify.py']);
  });

  it('with --cache: a later run whose lint entry misses reuses recheck\'s verdict from the cache folder', () => {
    const dir = setup();
    const first = run(dir, ['--cache']);
    expect(first.stderr).toMatch(/1 analysed by recheck .*0 from the --cache folder/);
    expect(readdirSync(path.join(dir, '.vaudit-cache'))).toContain('redos.cache');
    writeFileSync(path.join(dir, 'other.py'), 'x = 1\n'); // a new input: the whole-run entry misses
    const second = run(dir, ['--cache']);
    expect(second.stderr).toMatch(/0 analysed by recheck .*1 from the --cache folder/);
    expect(JSON.parse(second.stdout).findings).toEqual(JSON.parse(first.stdout).findings);
    // a corrupt store is a miss, not an error
    writeFileSync(path.join(dir, '.vaudit-cache', 'redos.cache'), '{not json');
    writeFileSync(path.join(dir, 'other.py'), 'x = 2\n');
    const third = run(dir, ['--cache']);
    expect(third.stderr).toMatch(/1 analysed by recheck .*0 from the --cache folder/);
  });

  it('a pattern over its automaton budget is not analysed, for a reason that names the budget and not a time', () => {
    // the reverse of `(a|b)*a(a|b){20}x` determinises to 2^20 states: over the budget before recheck starts
    const r = analyseRedos('x(a|b){20}a(a|b)*(c+)+y');
    expect(r).toMatchObject({ status: 'notAnalysed', limit: 'budget' });
    expect(r.status === 'notAnalysed' && r.reason).toMatch(/larger than the analysis budget \(its reverse determinises to more than 1500 states; budget 1500\/1500/);
    // the same pattern with counted repetitions spelled out in full: more positions than the budget
    expect(analyseRedos('(?:(a|b)+c){1,2000}', { budget: { maxPositions: 100, maxDfaStates: 1500 } })).toMatchObject({ status: 'notAnalysed', limit: 'budget' });
    // a back-reference is outside what the automaton analysis models: a limit too, not a time
    expect(analyseRedos('^(a+)\\1+$')).toMatchObject({ status: 'notAnalysed', limit: 'unsupported' });
  });

  it('repetitions nested more than 20 deep are over the budget before recheck starts (issue 30: recheck took seconds each, or overflowed its stack)', () => {
    const nested = (k: number) => `${'(a'.repeat(k)}${')*'.repeat(k)}`;
    const before = redosStats.recheckCalls;
    const deep = analyseRedos(nested(21));
    expect(deep).toMatchObject({ status: 'notAnalysed', limit: 'budget' });
    expect(deep.status === 'notAnalysed' && deep.reason).toMatch(/larger than the analysis budget \(more than 20 repetitions nested in one another;/);
    expect(analyseRedos(nested(400))).toEqual(deep);
    expect(redosStats.recheckCalls).toBe(before);
    // 20 levels are analysed: the same verdict as without the budget's nesting bound
    expect(analyseRedos(nested(20)).status).not.toBe('notAnalysed');
  });

  it('a pattern over the budget is a note of the run, not a finding: exit 0, listed under the summary', () => {
    const dir = tempDir('vaudit-redos-note-');
    writeFileSync(path.join(dir, 'verify.py'), 'import re\n\n\ndef ok(t):\n    return re.search(r"x(a|b){20}a(a|b)*(c+)+y", t) is not None\n');
    const stylish = runCli(['check', '.', '--rule', 'regex-redos', '--max-warnings', '0'], { cwd: dir });
    expect(stylish.code).toBe(0);
    expect(stylish.stdout).toContain('No problems');
    expect(stylish.stdout).toMatch(/notes: 1 \(not findings\)\n\s+verify\.py:5:\d+ regex-redos: This regular expression was not analysed/);
    const json = JSON.parse(runCli(['check', '.', '--rule', 'regex-redos', '--format', 'json'], { cwd: dir }).stdout);
    expect(json.findings).toEqual([]);
    expect(json.summary.findings.total).toBe(0);
    expect(json.summary.notes).toEqual([{ ruleId: 'regex-redos', file: 'verify.py', line: 5, column: expect.any(Number), message: expect.stringContaining('larger than the analysis budget') }]);
  });
});
