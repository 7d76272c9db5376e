/**
 * Open a page in headless Debian `chromium` and talk to it over the DevTools protocol on a pipe
 * (--remote-debugging-pipe: we write to its fd 3, read from its fd 4; messages end with NUL).
 * No playwright, no download. Collects console messages, uncaught exceptions, log entries
 * (CSP violations, failed loads) and every network request the page makes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

export function findChromium(): string | undefined {
  for (const c of [process.env.VAUDIT_CHROMIUM, 'chromium', 'chromium-browser']) {
    if (!c) continue;
    const r = spawnSync('sh', ['-c', `command -v "$0"`, c], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

export interface PageReport {
  console: Array<{ type: string; text: string }>;
  exceptions: string[];
  log: Array<{ level: string; source: string; text: string }>;
  requests: string[];
  /** Value of the expression evaluated after load. */
  value: unknown;
}

export async function openPage(browser: string, url: string, expression: string, timeoutMs = 30_000): Promise<PageReport> {
  const profile = mkdtempSync(path.join(tmpdir(), 'vaudit-chromium-'));
  const child: ChildProcess = spawn(
    browser,
    [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
      '--disable-component-update', '--disable-sync', '--disable-extensions', '--disable-default-apps',
      '--mute-audio', `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
    ],
    // its own temporary files (org.chromium.Chromium.*) go in the profile, removed with it
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true, env: { ...process.env, TMPDIR: profile } },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });

  let nextId = 1;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const listeners: Array<(m: any) => void> = [];
  let buf = '';
  fromBrowser.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg.id && pending.has(msg.id)) {
        const p = pending.get(msg.id)!;
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(`${msg.error.message} (${msg.error.code})`));
        else p.resolve(msg.result);
      } else for (const l of listeners) l(msg);
    }
  });
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });

  const report: PageReport = { console: [], exceptions: [], log: [], requests: [], value: undefined };
  const timer = setTimeout(() => {
    for (const p of pending.values()) p.reject(new Error(`chromium did not answer in ${timeoutMs} ms; stderr:\n${stderr.slice(-2000)}`));
  }, timeoutMs);
  try {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    let loaded!: () => void;
    const loadedP = new Promise<void>((r) => (loaded = r));
    listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      const p = m.params;
      switch (m.method) {
        case 'Runtime.consoleAPICalled':
          report.console.push({ type: p.type, text: (p.args ?? []).map((a: any) => a.value ?? a.description ?? '').join(' ') });
          break;
        case 'Runtime.exceptionThrown':
          report.exceptions.push(p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text ?? 'exception');
          break;
        case 'Log.entryAdded':
          report.log.push({ level: p.entry.level, source: p.entry.source, text: p.entry.text });
          break;
        case 'Network.requestWillBeSent':
          report.requests.push(p.request.url);
          break;
        case 'Page.loadEventFired':
          loaded();
          break;
      }
    });
    for (const d of ['Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable']) await send(d, {}, sessionId);
    const nav = await send('Page.navigate', { url }, sessionId);
    if (nav.errorText) throw new Error(`navigation failed: ${nav.errorText}`);
    await loadedP;
    await new Promise((r) => setTimeout(r, 150)); // let late console/log events arrive
    const ev = await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId);
    if (ev.exceptionDetails) throw new Error(`evaluate failed: ${ev.exceptionDetails.text}`);
    report.value = ev.result.value;
    await send('Browser.close').catch(() => undefined);
    return report;
  } finally {
    clearTimeout(timer);
    const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
  }
}
