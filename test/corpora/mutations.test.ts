/**
 * The structural rules still catch real mistakes: real ScienceBoard task files (with the suite's
 * verifier code, so entries bind to their `_eval_<kind>` functions) are copied to a temp folder,
 * each is broken in one way, and the real CLI must report every break at its JSON pointer — and
 * nothing from these rules on the untouched copy.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const CORPUS = path.resolve(import.meta.dirname, '../../../shared/corpora/scienceboard');
const corpusDir = process.env.VAUDIT_CORPORA ? path.join(path.resolve(process.env.VAUDIT_CORPORA), 'scienceboard') : CORPUS;
let present = false;
try {
  present = readFileSync(path.join(corpusDir, 'sci', 'base', 'task.py'), 'utf8').length > 0;
} catch {
  present = false;
}

const RULES = ['task-schema', 'init-missing', 'lambda-syntax', 'ans-mismatch'];

type Json = Record<string, any>;
interface Mutation {
  name: string;
  file: string;
  mutate(task: Json): void;
  rule: string;
  pointer: string;
  /** Text the message must contain (e.g. the verifier line that reads the dropped field). */
  says?: string;
}

const MUTATIONS: Mutation[] = [
  {
    name: 'drop a field the verifier reads unguarded (TeXstudio compile "file")',
    file: 'tasks/VM/TeXstudio/A-01.json',
    mutate: (t) => delete t.evaluate.find((e: Json) => e.type === 'compile').file,
    rule: 'task-schema',
    pointer: '/evaluate/1',
    says: 'VMTask._eval_compile',
  },
  {
    name: 'drop the state key a ChimeraX states entry reads',
    file: 'tasks/VM/ChimeraX/A-01.json',
    mutate: (t) => delete t.evaluate[0].key,
    rule: 'task-schema',
    pointer: '/evaluate/0',
    says: 'sci/ChimeraX/task.py',
  },
  {
    name: 'wrong type (a command that is a number)',
    file: 'tasks/VM/GrassGIS/A-01.json',
    mutate: (t) => (t.initialize[0].command = 42),
    rule: 'task-schema',
    pointer: '/initialize/0/command',
  },
  {
    name: 'misspelt entry kind',
    file: 'tasks/VM/ChimeraX/A-02.json',
    mutate: (t) => (t.evaluate[0].type = 'sates'),
    rule: 'task-schema',
    pointer: '/evaluate/0/type',
  },
  {
    name: 'broken lambda (unbalanced bracket)',
    file: 'tasks/VM/GrassGIS/B-03.json',
    mutate: (t) => (t.evaluate[0].key = String(t.evaluate[0].key).replace(/\]$/, '')),
    rule: 'lambda-syntax',
    pointer: '/evaluate/0/key',
  },
  {
    name: '"ans" changed against the ANS stop entry',
    file: 'tasks/VM/Celestia/C-01.json',
    mutate: (t) => (t.ans = `${t.ans}0`),
    rule: 'ans-mismatch',
    pointer: '/ans',
  },
  {
    name: 'TeXstudio file entry on a path no touch writes',
    file: 'tasks/VM/TeXstudio/A-02.json',
    mutate: (t) => (t.evaluate.find((e: Json) => e.type === 'file').path = '/home/user/elsewhere/main.tex'),
    rule: 'init-missing',
    pointer: '/evaluate/0',
  },
  {
    name: 'TeXstudio compile of a document no touch writes',
    file: 'tasks/VM/TeXstudio/A-03.json',
    mutate: (t) => (t.evaluate.find((e: Json) => e.type === 'compile').file = 'draft'),
    rule: 'init-missing',
    pointer: '/evaluate/1',
  },
  {
    name: 'Lean query that does not end in "by sorry"',
    file: 'tasks/VM/Lean/A-01.json',
    mutate: (t) => (t.initialize.find((i: Json) => i.func === 'query').expr += '\n'),
    rule: 'init-missing',
    pointer: '/initialize/1',
  },
];

interface Finding {
  ruleId: string;
  file: string;
  pointer?: string;
  message: string;
}

function check(dir: string): Finding[] {
  const r = runCli(['check', '.', '--format', 'json', '--rule', RULES.join(',')], { cwd: dir });
  expect([0, 1], r.stderr).toContain(r.code);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings.map((f) => ({ ...f, file: path.relative(dir, path.resolve(dir, f.file)).split(path.sep).join('/') }));
}

describe.skipIf(!present)(present ? 'mutated real ScienceBoard tasks' : 'mutated real ScienceBoard tasks: skipped, ../shared/corpora/scienceboard is absent', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-mutations-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(path.join(corpusDir, 'sci'), path.join(dir, 'sci'), { recursive: true });
  for (const m of MUTATIONS) {
    mkdirSync(path.dirname(path.join(dir, m.file)), { recursive: true });
    cpSync(path.join(corpusDir, m.file), path.join(dir, m.file));
  }

  it('the untouched copies are clean', { timeout: 300_000 }, () => {
    expect(check(dir).map((f) => `${f.ruleId} ${f.file} ${f.pointer}`)).toEqual([]);
  });

  it('every mutation is reported at its pointer', { timeout: 300_000 }, () => {
    for (const m of MUTATIONS) {
      const p = path.join(dir, m.file);
      const task = JSON.parse(readFileSync(p, 'utf8')) as Json;
      m.mutate(task);
      writeFileSync(p, JSON.stringify(task, null, 4));
    }
    const findings = check(dir);
    for (const m of MUTATIONS) {
      const hits = findings.filter((f) => f.file === m.file && f.ruleId === m.rule && f.pointer === m.pointer);
      expect(hits.length, `${m.name}: expected ${m.rule} at ${m.file}#${m.pointer}; got ${JSON.stringify(findings.filter((f) => f.file === m.file))}`).toBe(1);
      if (m.says) expect(hits[0]!.message).toContain(m.says);
    }
    const expected = new Set(MUTATIONS.map((m) => `${m.rule} ${m.file} ${m.pointer}`));
    expect(findings.map((f) => `${f.ruleId} ${f.file} ${f.pointer}`).filter((k) => !expected.has(k))).toEqual([]);
  });
});
