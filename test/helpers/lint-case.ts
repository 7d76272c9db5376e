/** The strict rule tester: lint a case folder (or docs example) and compare with inline expectations. */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lint } from '../../src/engine/lint.js';
import { compareExpectations, readExpectations, type Expectation } from '../../src/engine/expectations.js';
import type { Finding } from '../../src/core/types.js';

const CODE = /\.(json|py|js|mjs|cjs|ts|mts|cts)$/;

export function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else if (CODE.test(name)) out.push(p);
  }
  return out.sort();
}

export interface CaseResult {
  findings: Finding[];
  expectations: Expectation[];
  missing: Expectation[];
  unexpected: Finding[];
}

export async function lintCase(dir: string, ruleId: string): Promise<CaseResult> {
  const expectations = listFiles(dir).flatMap((f) => readExpectations(f, readFileSync(f, 'utf8')));
  // strict: every annotation names the message it expects
  const vague = expectations.filter((e) => !e.messageId).map((e) => `${path.relative(dir, e.file)}:${e.line ?? e.pointer} ${e.ruleId}`);
  if (vague.length) throw new Error(`vaudit-expect without a message id (write rule-id/messageId): ${vague.join('; ')}`);
  const result = await lint({ paths: [dir], cwd: dir, rules: [ruleId], reportUnusedSuppressions: false });
  try {
    const findings = result.findings.filter((f) => f.ruleId === ruleId);
    const { missing, unexpected } = compareExpectations(findings, expectations, [ruleId]);
    return { findings, expectations: expectations.filter((e) => e.ruleId === ruleId), missing, unexpected };
  } finally {
    result.dispose();
  }
}

/** Write an example's files into a fresh temp folder, lint, clean up. */
export async function lintExample(files: Record<string, string>, ruleId: string): Promise<CaseResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vaudit-example-'));
  try {
    for (const [rel, content] of Object.entries(files)) {
      const p = path.join(dir, rel);
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, content);
    }
    return await lintCase(dir, ruleId);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function describeMismatch(r: CaseResult): string {
  const f = (x: Finding) => `  unexpected ${x.ruleId}/${x.messageId} at ${path.basename(x.file)}:${x.range.start.line}:${x.range.start.column}${x.pointer !== undefined ? ` (${x.pointer})` : ''} — ${x.message}`;
  const e = (x: Expectation) =>
    `  missing ${x.ruleId}${x.messageId ? `/${x.messageId}` : ''} at ${path.basename(x.file)}${x.line ? `:${x.line}${x.column ? `:${x.column}` : ''}` : ` ${x.pointer}`}`;
  return [...r.unexpected.map(f), ...r.missing.map(e)].join('\n');
}
