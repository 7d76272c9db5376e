/**
 * An editor session keeps the findings of unit-local rules (`meta.unitLocal`) in the functions an edit
 * left unchanged (src/engine/carry.ts) instead of visiting them again. After any chain of edits its
 * findings must equal those of a session that visits the whole file every time (`keepFindings: false`):
 * every Python file of the real corpora and the LSP bench's module go through seeded edits, mostly one
 * character typed or deleted inside a function body, or the last edit undone (what is kept), some
 * anywhere (line breaks, module code, `global` lines: what is not). A rule that says it is unit-local and is not must make the same
 * comparison fail, and an honest one must not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pyFiles } from './helpers/py-files.js';
import { rng } from './helpers/rng.js';
import { LintSession } from '../src/engine/session.js';
import { defineRule, type Rule } from '../src/contract/rule.js';
import type { Finding } from '../src/core/types.js';
// @ts-expect-error: a plain ES module of the bench
import { pythonModule } from '../bench/lsp-workspace.mjs';

const repoRoot = path.resolve(import.meta.dirname, '..');
const corpora = path.resolve(repoRoot, '../shared/corpora');
const files = [...pyFiles(path.join(corpora, 'scienceboard')), ...pyFiles(path.join(corpora, 'spider2v'))];

const tmp = mkdtempSync(path.join(tmpdir(), 'vaudit-carry-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Everything a finding says, in a comparable line. */
const key = (f: Finding) => JSON.stringify([f.ruleId, f.messageId, f.range, f.message, f.severity, f.pointer, f.related, f.data, f.control, f.verifierPath, f.fingerprint]);

/** An offset inside a random function body (seven times in eight), else anywhere. */
function spot(s: LintSession, file: string, text: string, r: () => number): number {
  const fns = s.pythonAnalysis(file)?.functions() ?? [];
  if (fns.length && r() < 0.875) {
    const body = fns[Math.floor(r() * fns.length)]!.node.childForFieldName('body');
    if (body && body.end > body.start) return body.start + Math.floor(r() * (body.end - body.start));
  }
  return Math.floor(r() * text.length);
}

/** One editor-like change at `at`: mostly a character typed or deleted, or the last change undone. */
function change(text: string, previous: string, at: number, r: () => number): string {
  const k = r();
  const nl = text.lastIndexOf('\n', at - 1);
  const indent = /^[ \t]*/.exec(text.slice(nl + 1))![0];
  // typing and deleting inside a word, as most keystrokes do (anywhere else they mostly break the syntax)
  let w = at;
  while (w < text.length && !/\w/.test(text[w]!)) w++;
  if (k < 0.4) return text.slice(0, w) + 'x' + text.slice(w);
  if (k < 0.6) return text.slice(0, w) + text.slice(w + 1);
  if (k < 0.75) return previous;
  if (k < 0.8) return text.slice(0, at) + '\n' + text.slice(at);
  if (k < 0.85) return `${text.slice(0, nl + 1)}${indent}global subprocess\n${text.slice(nl + 1)}`;
  if (k < 0.9) return text.slice(0, at) + ' ' + text.slice(at);
  return `${text.slice(0, nl + 1)}${indent}timeout = None\n${text.slice(nl + 1)}`;
}

/** Two sessions over a one-module project, one keeping findings, both edited alike. */
async function pair(text: string, ruleSet?: ReadonlyMap<string, Rule>) {
  const dir = mkdtempSync(path.join(tmp, 'p-'));
  const file = path.join(dir, 'module.py');
  writeFileSync(file, text);
  const keeping = await LintSession.create({ root: dir, ruleSet });
  const visiting = await LintSession.create({ root: dir, ruleSet, keepFindings: false });
  return {
    file,
    keeping,
    async lint(t: string): Promise<{ kept: string[]; visited: string[] }> {
      keeping.setDocument(file, t);
      visiting.setDocument(file, t);
      const kept = (await keeping.lint([file])).findings.map(key);
      const visited = (await visiting.lint([file])).findings.map(key);
      return { kept, visited };
    },
    async dispose() {
      await keeping.dispose();
      await visiting.dispose();
    },
  };
}

/** Seeded edit chains over one text; returns how many edits kept units. */
async function chain(text: string, seed: number, edits: number, label: string): Promise<number> {
  const p = await pair(text);
  try {
    const r = rng(seed);
    let t = text;
    let previous = text;
    let kept = 0;
    let { kept: k, visited: v } = await p.lint(t);
    expect(k, `${label}: first lint`).toEqual(v);
    for (let i = 0; i < edits; i++) {
      const at = spot(p.keeping, p.file, t, r);
      const next = change(t, previous, at, r);
      previous = t;
      t = next;
      const before = p.keeping.stats().keptUnits;
      ({ kept: k, visited: v } = await p.lint(t));
      if (p.keeping.stats().keptUnits > before) kept++;
      expect(k, `${label}: edit ${i} at ${at}`).toEqual(v);
    }
    return kept;
  } finally {
    await p.dispose();
  }
}

describe('findings kept across edits equal a whole-file visit', () => {
  it.skipIf(!files.length)('on every Python file of the corpora (seeded edit chains)', async () => {
    let edits = 0;
    let kept = 0;
    for (const [i, f] of files.entries()) {
      const { readFileSync } = await import('node:fs');
      const text = readFileSync(f, 'utf8');
      kept += await chain(text, 1000 + i, 6, path.relative(corpora, f));
      edits += 6;
    }
    // the comparison is about kept findings: most edits (one character in a body) must have kept some
    expect(kept / edits, `${kept} of ${edits} edits kept units`).toBeGreaterThan(0.25);
  }, 600_000);

  it('on the LSP bench module (1,000 lines), where every function has findings to keep', async () => {
    // short chains: an edit that breaks the syntax keeps nothing until it is undone
    let kept = 0;
    for (let seed = 0; seed < 8; seed++) kept += await chain(pythonModule(1000) as string, seed, 5, `bench module, seed ${seed}`);
    expect(kept, `${kept} of 40 edits kept units`).toBeGreaterThan(10);
  }, 120_000);
});

describe('the comparison catches a rule that is not unit-local', () => {
  const docs = { whatItDoes: '', why: '', incorrect: [], correct: [] };
  /** Reports each function while a function named `beta` mentions `magic`: it reads another function. */
  const peeking = (unitLocal: boolean) => new Map<string, Rule>([['peeking', defineRule({
    meta: { id: 'peeking', description: 'test rule', defaultSeverity: 'warn', layers: ['python'], languages: ['python'], unitLocal, messages: { m: { what: 'Function {{name}} is flagged.', why: '', fix: '' } }, docs },
    create(ctx) {
      return { python: { function_definition(node, c) {
        // the flow is what tells an edit confined to one function (an editor always has it: unbound-name)
        void c.python.flow;
        const beta = c.python.functions().find((f) => f.name === 'beta');
        if (beta && c.python.src(beta.node).includes('magic')) ctx.report({ messageId: 'm', data: { name: node.childForFieldName('name')!.text }, at: node });
      } } };
    },
  })]]);
  const text = 'def alpha():\n    return 1\n\n\ndef beta():\n    return "magi"\n';
  const edited = text.replace('"magi"', '"magic"');

  it.each([
    { unitLocal: true, equal: false },
    { unitLocal: false, equal: true },
  ])('unitLocal $unitLocal: kept and visited findings equal: $equal', async ({ unitLocal, equal }) => {
    const p = await pair(text, peeking(unitLocal));
    try {
      await p.lint(text);
      const { kept, visited } = await p.lint(edited);
      expect(visited.length).toBe(2);
      expect(kept.length === visited.length && kept.every((k, i) => k === visited[i])).toBe(equal);
      expect(p.keeping.stats().keptUnits).toBe(unitLocal ? 1 : 0);
    } finally {
      await p.dispose();
    }
  });
});
