/**
 * `vaudit lsp --stdio` as an editor meets it: a real server process (needs
 * `npm run build`), driven over JSON-RPC with vscode-jsonrpc.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with bench/
import { applyTextEdits, rangeOf, startClient, uriOf, REPO } from '../bench/lsp-client.mjs';
import { lint } from '../src/engine/lint.js';
import { tempDir } from './helpers/temp-dir.js';

type Client = Awaited<ReturnType<typeof startClient>>;
interface Diag { range: { start: { line: number; character: number }; end: { line: number; character: number } }; code: string; source: string; message: string; severity: number; data?: unknown; codeDescription?: { href: string } }

const RULES_DIR = path.join(REPO, 'dist', 'rules');
const hasRule = (id: string) => existsSync(path.join(RULES_DIR, id, 'rule.js'));

let dir: string;
const clients: Client[] = [];
beforeAll(() => {
  if (!existsSync(path.join(REPO, 'dist', 'src', 'lsp', 'server.js'))) throw new Error('run `npm run build` first');
});
afterEach(() => {
  for (const c of clients.splice(0)) c.kill();
});

function workspace(files: Record<string, string>): string {
  dir = tempDir('vaudit-lsp-');
  mkdirSync(path.join(dir, '.git'));
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return dir;
}

async function client(root: string, opts: Record<string, unknown> = {}): Promise<Client> {
  const c = await startClient({ root, ...opts });
  clients.push(c);
  return c;
}

const isGone = (pid: number) => {
  try { process.kill(pid, 0); return false; } catch { return true; }
};

/** The document text an LSP range covers (UTF-16 positions). */
function textAt(text: string, r: Diag['range']): string {
  const lines = text.split('\n');
  const off = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return text.slice(off(r.start), off(r.end));
}

const BROKEN_JSON = '{\n  "type": "ChimeraX",\n  "instruction": "Öffne 😀 die Datei",\n  "evaluate": [{"type": "states", "key": "x",, "value": 1}]\n}\n';

describe('vaudit lsp (push client)', () => {
  it('initializes with incremental sync, pull diagnostics and code actions', async () => {
    const c = await client(workspace({}));
    const caps = c.init.capabilities;
    expect(caps.textDocumentSync.change).toBe(2);
    expect(caps.diagnosticProvider).toMatchObject({ interFileDependencies: true });
    expect(caps.codeActionProvider.codeActionKinds).toContain('quickfix');
    expect(c.init.serverInfo.name).toBe('vaudit');
  });

  it('open → exact diagnostic after non-ASCII text; change fixes it → cleared; pull agrees; close clears; exit leaves no process', async () => {
    const root = workspace({});
    const file = path.join(root, 'tasks', 'ChimeraX', 'fetch.json');
    const c = await client(root);
    const uri = c.open(file, BROKEN_JSON);
    const first = await c.nextDiagnostics(uri);
    expect(first.version).toBe(1);
    expect(first.diagnostics).toHaveLength(1);
    const d = first.diagnostics[0] as Diag;
    const bad = BROKEN_JSON.indexOf(',,') + 1; // the second comma
    expect(d).toMatchObject({ source: 'vaudit', code: 'parse-error', severity: 1, range: rangeOf(BROKEN_JSON, bad, bad + 1) });
    expect(textAt(BROKEN_JSON, d.range)).toBe(',');

    // the pull request answers the same diagnostics
    const pulled = await c.pull(file);
    expect(pulled.kind).toBe('full');
    expect(pulled.items).toEqual(first.diagnostics);

    // an incremental change that deletes the stray comma clears it
    const cleared = c.nextDiagnostics(uri, (p: { version: number }) => p.version === 2);
    c.change(file, rangeOf(BROKEN_JSON, bad, bad + 1), '');
    expect((await cleared).diagnostics).toEqual([]);
    const pulled2 = await c.pull(file, pulled.resultId);
    expect(pulled2.kind === 'unchanged' ? [] : pulled2.items).toEqual([]);

    // break it again, then close: the client is told to drop the file's diagnostics
    const again = c.nextDiagnostics(uri, (p: { version: number }) => p.version === 3);
    c.change(file, rangeOf(BROKEN_JSON, bad, bad), ',');
    expect((await again).diagnostics).toHaveLength(1);
    const closed = c.nextDiagnostics(uri, (p: { diagnostics: unknown[]; version?: number }) => p.diagnostics.length === 0 && p.version === undefined);
    c.close(file);
    await closed;

    const pid = c.child.pid!;
    expect(await c.stop()).toEqual({ code: 0, signal: null });
    expect(isGone(pid)).toBe(true);
  });

  it('keeps serving a document that does not parse, and lints Python verifiers', async () => {
    const root = workspace({});
    const py = path.join(root, 'verifier', 'mixin.py');
    const c = await client(root);
    const text = 'class M:\n    def _eval_states(self, item):\n        return item["value"] ==\n';
    const uri = c.open(py, text);
    const d = (await c.nextDiagnostics(uri)).diagnostics as Diag[];
    expect(d.some((x) => x.code === 'parse-error' && x.range.start.line === 2)).toBe(true);
    const fixed = c.nextDiagnostics(uri, (p: { version: number }) => p.version === 2);
    c.change(py, rangeOf(text, text.length - 1, text.length - 1), ' 1');
    expect(((await fixed).diagnostics as Diag[]).filter((x) => x.code === 'parse-error')).toEqual([]);
    expect(await c.stop()).toEqual({ code: 0, signal: null });
  });

  it('exits with status 1 on exit without shutdown, and when stdin closes', async () => {
    const c = await client(workspace({}));
    await waitFor(() => c.registrations.length > 0); // the server registered its file watchers
    expect(c.registrations.map((r: { method: string }) => r.method)).toContain('workspace/didChangeWatchedFiles');
    c.conn.sendNotification('exit');
    expect((await c.exited).code).toBe(1);
    const c2 = await client(workspace({}));
    c2.conn.dispose();
    c2.child.stdin.end();
    const r = await c2.exited;
    expect(r.code === 1 || r.code === 0).toBe(true);
    expect(isGone(c2.child.pid!)).toBe(true);
  });
});

describe('vaudit lsp (pull client)', () => {
  it('does not push to a pull client, answers pulls, refreshes on config changes and honours severities', async () => {
    const root = workspace({ 'verifier/v.py': 'x = 1\n' });
    const file = path.join(root, 'tasks', 'ChimeraX', 'fetch.json');
    const c = await client(root, { pull: true });
    c.open(file, BROKEN_JSON);
    const pulled = await c.pull(file);
    expect(pulled.items.map((d: Diag) => d.code)).toEqual(['parse-error']);
    expect(c.published.size).toBe(0);

    // a config written on disk → the server asks the client to re-pull
    writeFileSync(path.join(root, 'vaudit.config.json'), JSON.stringify({ rules: {} }));
    const before = c.refreshes.length;
    c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(path.join(root, 'vaudit.config.json')), type: 1 }] });
    await waitFor(() => c.refreshes.length > before);

    // an invalid config is reported, not fatal
    writeFileSync(path.join(root, 'vaudit.config.json'), JSON.stringify({ rules: { 'no-such-rule': 'error' } }));
    c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(path.join(root, 'vaudit.config.json')), type: 2 }] });
    await waitFor(() => c.messages.some((m: { message: string }) => /no-such-rule/.test(m.message)));
    writeFileSync(path.join(root, 'vaudit.config.json'), '{}');
    c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(path.join(root, 'vaudit.config.json')), type: 2 }] });
    const n = c.refreshes.length;
    c.conn.sendNotification('workspace/didChangeConfiguration', { settings: { vaudit: { severities: {} } } });
    await waitFor(() => c.refreshes.length > n);
    expect((await c.pull(file)).items.map((d: Diag) => d.code)).toEqual(['parse-error']);
    expect(c.published.size).toBe(0);
    expect(await c.stop()).toEqual({ code: 0, signal: null });
  });
});

async function waitFor(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// A task whose lambda is broken, with non-ASCII text (é, 😀 = 2 UTF-16 units) before it on the same line.
const LAMBDA_TASK = (lambda: string) =>
  `{\n  "type": "ChimeraX",\n  "instruction": "Fetch 2OLX.",\n  "evaluate": [\n    {"type": "states", "note": "é😀", "key": ${JSON.stringify(lambda)}, "value": "2olx"}\n  ]\n}\n`;

describe.skipIf(!hasRule('lambda-syntax'))('vaudit lsp with the lambda-syntax rule', () => {
  const broken = LAMBDA_TASK("lambda key: key.split('.')[:-1] +");
  const fixed = LAMBDA_TASK("lambda key: key.split('.')[:-1]");

  it('puts the diagnostic on the exact characters inside the JSON string, as the engine does', async () => {
    const root = workspace({ 'tasks/ChimeraX/t.json': broken });
    const file = path.join(root, 'tasks/ChimeraX/t.json');
    const engine = await lint({ paths: [file], cwd: root, rules: ['lambda-syntax'] });
    engine.dispose();
    const expected = engine.findings.filter((f) => f.ruleId === 'lambda-syntax');
    expect(expected.length).toBeGreaterThan(0);

    const c = await client(root);
    const uri = c.open(file, broken);
    const diags = ((await c.nextDiagnostics(uri)).diagnostics as Diag[]).filter((d) => d.code === 'lambda-syntax');
    expect(diags.map((d) => d.range)).toEqual(expected.map((f) => rangeOf(broken, f.range.start.offset, f.range.end.offset)));
    const lambdaStart = broken.indexOf('"lambda key') + 1;
    const lambdaEnd = broken.indexOf('"', lambdaStart);
    const line = broken.split('\n')[4]!;
    for (const d of diags) {
      expect(d.range.start.line).toBe(4);
      // UTF-16 characters: é is 1 unit, 😀 is 2
      expect(d.range.start.character).toBeGreaterThanOrEqual(line.indexOf('"lambda') + 1);
      expect(d.range.end.character).toBeLessThanOrEqual(line.indexOf('"lambda') + 1 + (lambdaEnd - lambdaStart));
      expect(d.codeDescription?.href).toMatch(/^file:.*lambda-syntax\.md$/);
      expect(existsSync(fileURLToPath(d.codeDescription!.href))).toBe(true);
    }

    // fixing the lambda clears it
    const cleared = c.nextDiagnostics(uri, (p: { version: number }) => p.version === 2);
    c.change(file, rangeOf(broken, 0, broken.length), fixed);
    expect(((await cleared).diagnostics as Diag[]).filter((d) => d.code === 'lambda-syntax')).toEqual([]);
    expect((await c.pull(file)).items.filter((d: Diag) => d.code === 'lambda-syntax')).toEqual([]);
    expect(await c.stop()).toEqual({ code: 0, signal: null });
  });

  it('a finding with a fix offers it as the preferred quick fix, the same edit as vaudit check --fix', async () => {
    const py = 'import requests\n\n\ndef check(u):\n    return requests.get(u).ok\n';
    const root = workspace({ 'v/check.py': py });
    const file = path.join(root, 'v/check.py');
    const c = await client(root);
    const uri = c.open(file, py);
    const diags = ((await c.nextDiagnostics(uri)).diagnostics as Diag[]).filter((d) => d.code === 'missing-timeout');
    expect(diags).toHaveLength(1);
    const actions = await c.codeActions(file, diags[0]!.range, diags);
    const fix = actions.find((a: { title: string }) => a.title === 'Add timeout=60');
    expect(fix?.isPreferred).toBe(true);
    expect(actions.find((a: { title: string }) => a.title.startsWith('Disable missing-timeout'))?.isPreferred).toBe(false);
    const after = applyTextEdits(py, fix.edit.changes[uri]);
    expect(after).toBe(py.replace('requests.get(u)', 'requests.get(u, timeout=60)'));
    const applied = c.nextDiagnostics(uri, (p: { version: number }) => p.version === 2);
    c.change(file, rangeOf(py, 0, py.length), after);
    expect(((await applied).diagnostics as Diag[]).filter((d) => d.code === 'missing-timeout')).toEqual([]);
    expect(await c.stop()).toEqual({ code: 0, signal: null });
  });

  it('code action "Disable lambda-syntax" inserts a //vaudit-ignore member that removes the diagnostic', async () => {
    const root = workspace({ 'tasks/ChimeraX/t.json': broken });
    const file = path.join(root, 'tasks/ChimeraX/t.json');
    const c = await client(root);
    const uri = c.open(file, broken);
    const diags = ((await c.nextDiagnostics(uri)).diagnostics as Diag[]).filter((d) => d.code === 'lambda-syntax');
    const actions = await c.codeActions(file, diags[0]!.range, diags);
    const disable = actions.find((a: { title: string }) => a.title.startsWith('Disable lambda-syntax'));
    const docs = actions.find((a: { title: string }) => a.title === 'Show documentation for lambda-syntax');
    expect(disable).toBeDefined();
    expect(docs?.command?.command).toBe('vaudit.showDocumentation');
    const edits = disable.edit.changes[uri];
    const after = applyTextEdits(broken, edits);
    expect(JSON.parse(after).evaluate[0]['//vaudit-ignore']).toEqual(['lambda-syntax']);
    expect(after.length - broken.length).toBeLessThan(45); // a small edit

    const applied = c.nextDiagnostics(uri, (p: { version: number }) => p.version === 2);
    c.change(file, rangeOf(broken, 0, broken.length), after);
    expect(((await applied).diagnostics as Diag[]).filter((d) => d.code === 'lambda-syntax' || d.code === 'unused-suppression')).toEqual([]);

    const href = await c.conn.sendRequest('workspace/executeCommand', { command: 'vaudit.showDocumentation', arguments: ['lambda-syntax'] });
    expect(readFileSync(fileURLToPath(href), 'utf8')).toContain('## lambda-syntax');
    expect(await c.stop()).toEqual({ code: 0, signal: null });
  });
});

describe('cross-file: verifier module ↔ task files', () => {
  it('re-lints an open task file when the verifier module its entries route to is edited', async () => {
    const py = 'class ChimeraXMixin:\n    def _eval_states(self, eval_item, current_states):\n        return current_states.get(eval_item["key"]) == eval_item["value"]\n';
    const task = '{\n  "type": "ChimeraX",\n  "instruction": "Fetch 2OLX.",\n  "evaluate": [{"type": "states", "key": "a.b", "value": 0.05}]\n}\n';
    const root = workspace({ 'verifier/__init__.py': '', 'verifier/chimerax/__init__.py': '', 'verifier/chimerax/mixin.py': py, 'tasks/ChimeraX/t.json': task });
    const pyFile = path.join(root, 'verifier/chimerax/mixin.py');
    const taskFile = path.join(root, 'tasks/ChimeraX/t.json');
    const c = await client(root);
    const taskUri = c.open(taskFile, task);
    const pyUri = c.open(pyFile, py);
    // the entry's value is compared with == by the verifier it routes to
    await waitFor(() => c.published.get(taskUri)?.at(-1)?.diagnostics.some((d: Diag) => d.code === 'float-equality'));
    await waitFor(() => c.published.has(pyUri));
    // renaming the verifier function unbinds the entry: the task's finding goes once the edits pause
    const cleared = c.nextDiagnostics(taskUri, (p: { diagnostics: Diag[] }) => !p.diagnostics.some((d) => d.code === 'float-equality'));
    const at = py.indexOf('_eval_states') + '_eval_state'.length;
    c.change(pyFile, rangeOf(py, at, at + 1), 'z');
    await cleared;
    // …and an edit of an unrelated module publishes nothing new for the task file
    const other = path.join(root, 'verifier/other.py');
    const otherUri = c.open(other, 'x = 1\n');
    await c.nextDiagnostics(otherUri);
    await new Promise((r) => setTimeout(r, 600));
    const count = c.published.get(taskUri).length;
    const otherDone = c.nextDiagnostics(otherUri, (p: { version: number }) => p.version === 2);
    c.change(other, rangeOf('x = 1\n', 0, 0), 'y = 2\n');
    await otherDone;
    await new Promise((r) => setTimeout(r, 600));
    expect(c.published.get(taskUri).length).toBe(count);
    expect(await c.stop()).toEqual({ code: 0, signal: null });
  });
});

describe('vaudit lsp confirm on save', () => {
  it('runs the control case through the host in the background and shows the confirmation', async () => {
    const root = workspace({
      'verifier/checks.py': 'def check(state):\n    if state:\n        verdict = True\n    return verdict\n',
    });
    const file = path.join(root, 'verifier', 'checks.py');
    const c = await client(root, { initializationOptions: { confirmOnSave: true, trustedWorkspaces: [root] } });
    const uri = c.open(file, readFileSync(file, 'utf8'), 'python');
    const first = await c.nextDiagnostics(uri);
    const d = (first.diagnostics as Diag[]).find((x) => x.code === 'unbound-name');
    expect(d, 'unbound-name on the first lint').toBeDefined();
    expect(d!.message).not.toMatch(/control case:/);
    c.save(file);
    const confirmed = await c.nextDiagnostics(uri, (p: { diagnostics: Diag[] }) => p.diagnostics.some((x) => x.code === 'unbound-name' && /\[control case: confirmed/.test(x.message)), 20_000);
    const msg = (confirmed.diagnostics as Diag[]).find((x) => x.code === 'unbound-name')!.message;
    expect(msg).toMatch(/\[control case: confirmed, witness state=null, observed UnboundLocalError/);
    expect(c.messages.filter((m: { message: string }) => /confirmation failed/.test(m.message))).toEqual([]);
  });

  it('never runs control cases for a workspace the client did not mark trusted (issue 17)', async () => {
    const root = workspace({
      'verifier/checks.py': 'def check(state):\n    if state:\n        verdict = True\n    return verdict\n',
    });
    const file = path.join(root, 'verifier', 'checks.py');
    // confirmOnSave on, but the folder is not among the trusted workspaces (the default is none).
    const c = await client(root, { initializationOptions: { confirmOnSave: true, trustedWorkspaces: ['/some/other/folder'] } });
    const uri = c.open(file, readFileSync(file, 'utf8'), 'python');
    const first = await c.nextDiagnostics(uri);
    expect((first.diagnostics as Diag[]).some((x) => x.code === 'unbound-name')).toBe(true);
    c.save(file);
    const deadline = Date.now() + 15_000;
    while (!c.messages.some((m: { message: string }) => /not a trusted workspace/.test(m.message)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(c.messages.map((m: { message: string }) => m.message).join('\n')).toMatch(/does not run control cases for .* not a trusted workspace/);
    // No diagnostics with a control-case result ever arrive.
    await expect(c.nextDiagnostics(uri, (p: { diagnostics: Diag[] }) => p.diagnostics.some((x) => /control case:/.test(x.message)), 4000)).rejects.toThrow();
    expect(c.messages.filter((m: { message: string }) => /confirmation failed/.test(m.message))).toEqual([]);
  });
});
