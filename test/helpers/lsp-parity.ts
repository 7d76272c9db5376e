/**
 * Editor/CLI parity over a real `vaudit lsp --stdio` process (test/lsp-parity.test.ts,
 * test/lsp-reach-reuse.test.ts): open documents in a copy of a suite, apply text edits as the editor
 * would (written to disk too), and compare every open document's published diagnostics with the findings
 * of a fresh `vaudit check --format json` process over the same files.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
// @ts-expect-error plain ESM helper shared with bench/
import { rangeOf, uriOf, BIN } from '../../bench/lsp-client.mjs';

interface Diag { range: { start: { line: number; character: number }; end: { line: number; character: number } }; code: string; message: string; severity: number; data?: { fingerprint?: string } }
interface JsonFinding { ruleId: string; message: string; severity: string; file: string; range: { start: { line: number; column: number }; end: { line: number; column: number } }; fingerprint?: string }
/** The client bench/lsp-client.mjs's startClient returns (the parts used here). */
interface Client {
  open(file: string, text: string): void;
  change(file: string, range: unknown, text: string): void;
  published: Map<string, unknown>;
  logs: Array<{ message: string }>;
}

const toLsp = (p: { line: number; column: number }) => ({ line: p.line - 1, character: p.column - 1 });
const key = (d: { code: string; range: Diag['range']; message: string; severity: number; fingerprint?: string }) =>
  `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.code} ${d.severity} ${d.fingerprint ?? ''} ${d.message}`;

/** A cold `vaudit check` process over the project: findings per open file, as the editor would show them. */
function checkFindings(root: string, open: readonly string[]): Map<string, string[]> {
  const r = spawnSync(process.execPath, [BIN, 'check', '.', '--format', 'json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`vaudit check exited ${r.status}: ${r.stderr}`);
  const report = JSON.parse(r.stdout) as { findings: JsonFinding[] };
  const out = new Map<string, string[]>(open.map((f) => [f, []]));
  for (const f of report.findings) {
    const rel = path.relative(root, path.resolve(root, f.file)).split(path.sep).join('/');
    out.get(rel)?.push(key({ code: f.ruleId, range: { start: toLsp(f.range.start), end: toLsp(f.range.end) }, message: f.message, severity: f.severity === 'error' ? 1 : 2, fingerprint: f.fingerprint }));
  }
  for (const v of out.values()) v.sort();
  return out;
}

export interface ParityEditor {
  /** The last diagnostics published for each open document's current version (keys `range code severity fingerprint message`). */
  published(): Map<string, string[]>;
  /** Waits until every open document is re-checked and agrees with a cold `vaudit check`, then asserts it. */
  agree(step: string, logsBefore?: number): Promise<void>;
  /** Replaces the first `from` in `file` by `to` (the editor's change and the file on disk), then agrees. */
  edit(step: { why: string; file: string; from: string; to: string }): Promise<void>;
}

/** Opens `open` (paths relative to `root`) in the client and returns the parity operations over them. */
export function openForParity(c: Client, root: string, open: readonly string[]): ParityEditor {
  const texts = new Map(open.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
  const versions = new Map<string, number>();
  for (const f of open) { c.open(path.join(root, f), texts.get(f)!); versions.set(f, 1); }

  const published = () => {
    const out = new Map<string, string[]>();
    for (const f of open) {
      const list = c.published.get(uriOf(path.join(root, f))) as Array<{ version?: number; diagnostics: Diag[] }> | undefined;
      const last = list?.at(-1);
      if (!last || last.version !== versions.get(f)) continue; // not yet for the current text
      out.set(f, last.diagnostics.map((d) => key({ ...d, fingerprint: d.data?.fingerprint })).sort());
    }
    return out;
  };
  const agree = async (step: string, logsBefore?: number) => {
    const expected = checkFindings(root, open);
    const t0 = Date.now();
    let got = published();
    // the edited document is published at once, the others once the edits pause: until they are
    // re-checked, their earlier diagnostics stand (and may agree by chance)
    const rechecked = () => logsBefore === undefined || c.logs.slice(logsBefore).some((l) => /\bre-checked /.test(l.message));
    while (Date.now() - t0 < 30_000 && (!rechecked() || JSON.stringify([...got].sort()) !== JSON.stringify([...expected].sort()))) {
      await new Promise((r) => setTimeout(r, 100));
      got = published();
    }
    expect(Object.fromEntries(got), step).toEqual(Object.fromEntries(expected));
  };
  const edit = async (s: { why: string; file: string; from: string; to: string }) => {
    const logsBefore = c.logs.length;
    const text = texts.get(s.file)!;
    const at = text.indexOf(s.from);
    expect(at, `${s.why}: '${s.from}' in ${s.file}`).toBeGreaterThanOrEqual(0);
    const next = text.slice(0, at) + s.to + text.slice(at + s.from.length);
    c.change(path.join(root, s.file), rangeOf(text, at, at + s.from.length), s.to);
    versions.set(s.file, versions.get(s.file)! + 1);
    texts.set(s.file, next);
    writeFileSync(path.join(root, s.file), next);
    await agree(s.why, logsBefore);
  };
  return { published, agree, edit };
}
