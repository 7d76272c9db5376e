/** JSON-layer rules through the real engine: findings land on the exact characters of the file. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lint } from '../src/engine/lint.js';

async function run(files: Record<string, string>, rules: string[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-json-rules-'));
  try {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    const r = await lint({ paths: [dir], cwd: dir, rules, reportUnusedSuppressions: false });
    const out = r.findings
      .filter((f) => rules.includes(f.ruleId))
      .map((f) => ({ rule: f.ruleId, id: f.messageId, pointer: f.pointer, text: files[path.relative(dir, f.file)]!.slice(f.range.start.offset, f.range.end.offset), line: f.range.start.line, column: f.range.start.column, message: f.message }));
    r.dispose();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A task whose lambdas sit after escapes and non-BMP text on the same line.
const TASK = `{"type": "ChimeraX", "instruction": "Zeige “Molekül” 😀 — \\u00e9t\\u00e9",
 "evaluate": [
  {"type": "states", "key": "lambda key: key", "note": "😀😀", "find": "lambda key: key.endswith(\\"._name\\") and \\"é\\" in key", "value": null},
  {"type": "info", "key": "lambda dump: [m for m in dump[\\"models\\"] if m[\\"on\\"]][0]", "value": 1},
  {"type": "info", "key": "log", "value": null, "pattern": "\\\\d+ (?<n>\\\\w+)"},
  {"type": "info", "key": "lambda dump: dump[\\"t\\"]", "value": 1, "pred": "lambda key, value: time.time() - key < value and value in str(key)"}
 ]}
`;

describe('JSON-layer findings at exact characters', () => {
  it('maps lambda and regex findings through escapes and astral characters', async () => {
    const f = await run({ 'tasks/ChimeraX/t.json': TASK }, ['lambda-arity', 'first-match-lambda', 'regex-invalid', 'time-dependent', 'substring-containment']);
    const by = (rule: string) => f.filter((x) => x.rule === rule);
    expect(by('lambda-arity').map((x) => [x.text, x.pointer])).toEqual([['key', '/evaluate/0/find']]);
    expect(by('first-match-lambda').map((x) => x.text)).toEqual(['[m for m in dump[\\"models\\"] if m[\\"on\\"]][0]']);
    expect(by('regex-invalid').map((x) => [x.text, x.pointer])).toEqual([['?<n', '/evaluate/2/pattern']]);
    expect(by('time-dependent').map((x) => x.text)).toEqual(['time.time()']);
    // find's key is a serialized path (a string): `"é" in key` is a substring test too
    expect(by('substring-containment').map((x) => x.text)).toEqual(['\\"é\\" in key', 'value in str(key)']);
    // columns are UTF-16 based and 1-based: the finding's column points at the same text
    const arity = by('lambda-arity')[0]!;
    const line = TASK.split('\n')[arity.line - 1]!;
    expect(line.slice(arity.column - 1, arity.column - 1 + 3)).toBe('key');
  });

  it('reports a syntax error at the unclosed bracket and a non-lambda predicate as a whole', async () => {
    const text = `{"type": "Celestia", "instruction": "x", "evaluate": [
  {"type": "info", "key": "lambda d: max(d[\\"a\\"], d[\\"b\\"]", "value": 1},
  {"type": "info", "key": "lambda d: d", "value": 1, "pred": "  abs(key - value) < 1e-3  "}
]}
`;
    const f = await run({ 'tasks/Celestia/t.json': text }, ['lambda-syntax']);
    expect(f.map((x) => [x.id, x.text])).toEqual([
      ['syntax', '('],
      ['notLambda', 'abs(key - value) < 1e-3'],
    ]);
    expect(f[0]!.message).toMatch(/^The `key` lambda is not valid Python \('\(' was never closed\)/);
  });

  it('checks literal patterns in Python verifier code at their characters', async () => {
    const py = 'import re\nA = re.compile(r"^(?<year>\\d{4})-")\nB = re.search("x(", s)\nC = re.match(r"(a|a)*$", s, re.I | re.M)\nD = re.compile(r"(?x) a # ( not a group", re.M)\n';
    const f = await run({ 'verifier/v.py': py }, ['regex-invalid', 'regex-redos']);
    expect(f.map((x) => [x.rule, x.id, x.line, x.text])).toEqual([
      ['regex-invalid', 'invalid', 2, '?<y'],
      ['regex-invalid', 'invalid', 3, '('],
      ['regex-redos', 'exponential', 4, 'r"(a|a)*$"'],
    ]);
  });

  it('keeps time-dependent precise in verifier files', async () => {
    const py = 'import time, datetime, logging\n\ndef grade(log, t0):\n    logging.info("at %s", time.time())\n    started = time.time()\n    if datetime.date.today().isoformat() in log:\n        return True\n    return time.localtime(t0).tm_year == 2024\n';
    const f = await run({ 'verifier/v.py': py }, ['time-dependent']);
    expect(f.map((x) => [x.line, x.text])).toEqual([[6, 'datetime.date.today()']]);
  });
});
