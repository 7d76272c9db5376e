// A minimal LSP client over a real `vaudit lsp --stdio` process, driven with
// vscode-jsonrpc. Shared by test/lsp-*.test.ts and bench/lsp-latency.mjs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '..');
export const BIN = path.join(REPO, 'bin', 'vaudit.js');

export const uriOf = (p) => pathToFileURL(p).href;

/**
 * Start the server. `pull`: announce pull-diagnostics support (the server then
 * does not push). Returns helpers that wait for pushed diagnostics.
 */
export async function startClient({ root, pull = false, initializationOptions = {}, capabilities = {}, env = {}, nodeArgs = [] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'lsp', '--stdio'], {
    cwd: root ?? REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  child.stdin.on('error', () => {}); // the server may exit while a reply is in flight
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => { conn.dispose(); resolve({ code, signal }); }));
  const published = new Map(); // uri -> list of { version, diagnostics }
  const waiters = [];
  const messages = [];
  const logs = [];
  const refreshes = [];
  const registrations = [];
  conn.onNotification('textDocument/publishDiagnostics', (p) => {
    const list = published.get(p.uri) ?? [];
    list.push(p);
    published.set(p.uri, list);
    for (const w of [...waiters]) if (w.test(p)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(p); }
  });
  conn.onNotification('window/showMessage', (p) => messages.push(p));
  conn.onNotification('window/logMessage', (p) => logs.push(p));
  conn.onRequest('workspace/diagnostic/refresh', () => { refreshes.push(Date.now()); return null; });
  conn.onRequest('client/registerCapability', (p) => { registrations.push(...p.registrations); return null; });
  conn.onRequest('workspace/configuration', (p) => p.items.map(() => null));
  conn.onRequest('window/showDocument', () => ({ success: true }));
  conn.listen();

  const init = await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: root ? uriOf(root) : null,
    workspaceFolders: root ? [{ uri: uriOf(root), name: path.basename(root) }] : null,
    initializationOptions,
    capabilities: {
      textDocument: {
        synchronization: { didSave: true },
        publishDiagnostics: { relatedInformation: true, versionSupport: true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        ...(pull ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
      },
      workspace: {
        didChangeWatchedFiles: { dynamicRegistration: true },
        configuration: true,
        ...(pull ? { diagnostics: { refreshSupport: true } } : {}),
      },
      window: { showDocument: { support: true } },
      ...capabilities,
    },
  });
  await conn.sendNotification('initialized', {});

  /** Resolve with the next publishDiagnostics for `uri` that satisfies `pred`. */
  const nextDiagnostics = (uri, pred = () => true, timeoutMs = 15000) =>
    new Promise((resolve, reject) => {
      const w = { test: (p) => p.uri === uri && pred(p), resolve };
      waiters.push(w);
      setTimeout(() => {
        const i = waiters.indexOf(w);
        if (i >= 0) { waiters.splice(i, 1); reject(new Error(`no diagnostics for ${uri} within ${timeoutMs} ms; stderr: ${stderr}`)); }
      }, timeoutMs).unref();
    });

  const versions = new Map();
  return {
    conn, child, init, published, messages, logs, refreshes, registrations, exited,
    get stderr() { return stderr; },
    nextDiagnostics,
    open(file, text, languageId) {
      const uri = uriOf(file);
      versions.set(uri, 1);
      const lang = languageId ?? (file.endsWith('.py') ? 'python' : file.endsWith('.json') ? 'json' : file.endsWith('.ts') ? 'typescript' : 'javascript');
      conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: lang, version: 1, text } });
      return uri;
    },
    /** Incremental change: replace [start, end) (LSP positions) with text. */
    change(file, range, text) {
      const uri = uriOf(file);
      const version = (versions.get(uri) ?? 1) + 1;
      versions.set(uri, version);
      conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ range, text }] });
      return version;
    },
    close(file) {
      conn.sendNotification('textDocument/didClose', { textDocument: { uri: uriOf(file) } });
    },
    save(file) {
      conn.sendNotification('textDocument/didSave', { textDocument: { uri: uriOf(file) } });
    },
    pull(file, previousResultId) {
      return conn.sendRequest('textDocument/diagnostic', { textDocument: { uri: uriOf(file) }, previousResultId });
    },
    codeActions(file, range, diagnostics) {
      return conn.sendRequest('textDocument/codeAction', { textDocument: { uri: uriOf(file) }, range, context: { diagnostics } });
    },
    /** Polite stop: shutdown, exit; resolves with the exit status. */
    async stop() {
      await conn.sendRequest('shutdown');
      conn.sendNotification('exit');
      const r = await exited;
      conn.dispose();
      return r;
    },
    kill() {
      try { child.kill('SIGKILL'); } catch { /* gone */ }
      conn.dispose();
    },
  };
}

/** Apply LSP TextEdits (positions in UTF-16) to a text. */
export function applyTextEdits(text, edits) {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n') lineStarts.push(i + 1);
    else if (text[i] === '\r') { if (text[i + 1] === '\n') i++; lineStarts.push(i + 1); }
  }
  const off = (p) => Math.min(text.length, (lineStarts[p.line] ?? text.length) + p.character);
  const sorted = [...edits].sort((a, b) => off(b.range.start) - off(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, off(e.range.start)) + e.newText + out.slice(off(e.range.end));
  return out;
}

/** LSP range of [startOffset, endOffset) in text. */
export function rangeOf(text, startOffset, endOffset = startOffset) {
  const pos = (o) => {
    const before = text.slice(0, o);
    const line = before.split('\n').length - 1;
    return { line, character: o - (before.lastIndexOf('\n') + 1) };
  };
  return { start: pos(startOffset), end: pos(endOffset) };
}
