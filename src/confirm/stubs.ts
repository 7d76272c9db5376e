/**
 * Stub tools and endpoints for control cases: the scripts that stall or prompt, and which tools
 * and local port a function's case must stub (used by the missing-timeout, stream-blind and
 * unguarded-state-read oracles).
 */
import { readFileSync } from 'node:fs';
import { functionSource, num, paramUsage, str, WITNESS_PORT, WITNESS_TOOL, type Target } from './oracle-kit.js';
import type { Spec } from './harness.js';

export const STALL = '#!/bin/sh\nexec sleep 3600\n';
/** An interactive tool: waits for an answer on its stdin (the harness's stdin never answers;
 *  `stdin=DEVNULL` or `input=` gives EOF and the stub exits with an error, as pdflatex would). */
export const PROMPT = '#!/bin/sh\necho "! Emergency stop? Enter file name:"\nIFS= read -r answer || exit 1\nexec sleep 3600\n';

export function functionText(file: string, startLine: number, endLine: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(startLine - 1, endLine).join('\n');
  } catch {
    return '';
  }
}

/** Commands that run another command given after their own options (`stdbuf -oL lake build`). */
const WRAPPERS = new Set(['stdbuf', 'env', 'timeout', 'nice', 'nohup', 'sudo', 'ionice', 'xvfb-run', 'setsid', 'unbuffer']);

function stringItems(list: string): string[] {
  const out: string[] = [];
  const re = /[rbuf]?(['"])((?:\\.|(?!\1).)*)\1/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(list))) out.push(m[2]!);
  return out;
}

/** Wrappers a control case may replace by a stub that runs the wrapped command as given (its own
 *  options dropped): they change buffering, priority or the session, never whether the run ends.
 *  `timeout` bounds the run and `sudo` changes who runs it: those are never stubbed. */
const PASSTHROUGH_WRAPPERS = new Set(['stdbuf', 'env', 'nice', 'nohup', 'ionice', 'setsid', 'unbuffer']);
/** A stub for a pass-through wrapper: drop its options (and `NAME=value` settings), run the rest. */
const PASSTHROUGH = '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in -*|*=*) shift;; *) break;; esac; done\nexec "$@"\n';

/** The program an argv runs: wrapper commands and their options skipped (each wrapper seen is
 *  added to `wrappers`). */
function programOf(argv: string[], wrappers?: Set<string>): string | undefined {
  let i = 0;
  while (i < argv.length && WRAPPERS.has(argv[i]!.split('/').pop()!)) {
    const w = argv[i]!.split('/').pop()!;
    wrappers?.add(w);
    i++;
    while (i < argv.length && (argv[i]!.startsWith('-') || /=/.test(argv[i]!) || (w === 'timeout' && /^\d/.test(argv[i]!)))) i++;
  }
  return argv[i] && /^[\w./+-]+$/.test(argv[i]!) ? argv[i] : undefined;
}

/** Tools the code runs, from its process calls: a list display's program (wrappers skipped; an
 *  absolute path stays absolute), a shell string's first word, and, for a local helper that
 *  forwards its `*args` to the call (`def sub_check(*args): run(args, …)`), the first string of
 *  each call of that helper. */
function toolsFromCalls(code: string, wrappers?: Set<string>): string[] {
  const out: string[] = [];
  const add = (t: string | undefined) => void (t && !out.includes(t) && out.length < 6 && out.push(t));
  const re = /\b(?:run|call|check_call|check_output|Popen|create_subprocess_exec|create_subprocess_shell|getoutput|getstatusoutput)\(\s*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) {
    const rest = code.slice(m.index + m[0].length);
    if (rest.startsWith('[')) {
      const end = rest.indexOf(']');
      add(programOf(stringItems(rest.slice(1, end < 0 ? undefined : end)), wrappers));
    } else if (/^[rbuf]?['"]/.test(rest)) {
      add(programOf(stringItems(rest.split('\n')[0]!)[0]?.trim().split(/\s+/) ?? [], wrappers));
    } else {
      const name = /^\*?(\w+)/.exec(rest)?.[1];
      if (!name) continue;
      // `name` is a local helper's `*name` parameter: follow the helper's calls
      const before = code.slice(0, m.index);
      const helper = [...before.matchAll(new RegExp(String.raw`def\s+(\w+)\s*\([^)]*\*${name}\b[^)]*\)`, 'g'))].pop()?.[1];
      if (helper) {
        for (const c of code.matchAll(new RegExp(String.raw`\b${helper}\(\s*([rbuf]?(['"])(?:(?!\2).)*\2(?:\s*,\s*[rbuf]?(['"])(?:(?!\3).)*\3)*)`, 'g')))
          add(programOf(stringItems(c[1]!), wrappers));
      }
    }
  }
  return out;
}

function toolNames(code: string): string[] {
  const out: string[] = [];
  // `["tool", …]` list displays only (not subscripts like `item["path"]`, not `methods=["POST"]`)
  const re = /(?<![\w\])\]]|methods\s*=\s*)\[\s*[rbuf]?(['"])([A-Za-z0-9_.+-]+)\1/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) if (!out.includes(m[2]!) && out.length < 6) out.push(m[2]!);
  return out;
}

/** The local port of the address nearest before the flagged line (lines `rel` back to the start, so
 *  the call the flagged line makes or reads wins over another address later in the function). */
function portNear(code: string, rel: number): number | undefined {
  const lines = code.split('\n');
  if (rel < 0 || rel >= lines.length) return localPort(code);
  for (let k = rel; k >= 0; k--) {
    const p = localPort(lines.slice(k, rel + 1).join('\n'), code);
    if (p !== undefined) return p;
  }
  return localPort(code);
}

function localPort(text: string, code = text): number | undefined {
  const m = /https?:\/\/(?:localhost|127\.0\.0\.1)(?::(\d+))?(?![:\d{])/.exec(text);
  if (m) return Number(m[1] ?? 80);
  // f"http://localhost:{port}/run" with `port = data.get("port", 8000)`: the port the call reaches
  // when the request names none (a route's default body)
  const v = /https?:\/\/(?:localhost|127\.0\.0\.1):\{(\w+)\}/.exec(text)?.[1];
  const d = v ? new RegExp(String.raw`\b${v}\s*=\s*\w+\.get\(\s*['"]\w+['"]\s*,\s*(\d+)\s*\)`).exec(code)?.[1] : undefined;
  if (d) return Number(d);
  return hostedPort(text, code);
}

/** f"http://{vm_ip}:{port}/execute" with `vm_ip = env.vm_ip` (or a parameter) and `port = 5000`: the
 *  fixed port the call reaches on a host the case gives (a harness object's address, the loopback). */
function hostedPort(text: string, code: string): number | undefined {
  const m = /https?:\/\/\{([\w.]+)\}:(?:(\d+)|\{(\w+)\})/.exec(text);
  if (!m) return undefined;
  const host = m[1]!;
  const hostGiven = host.includes('.') || new RegExp(String.raw`^[ \t]*${host}\s*=\s*[A-Za-z_]\w*\.\w+\s*$`, 'm').test(code) || new RegExp(String.raw`def\s+\w+\s*\([^)]*\b${host}\b`).test(code);
  if (!hostGiven) return undefined;
  if (m[2]) return Number(m[2]);
  const lit = new RegExp(String.raw`^[ \t]*${m[3]!}\s*(?::\s*int\s*)?=\s*(\d+)\s*$`, 'm').exec(code)?.[1];
  return lit ? Number(lit) : undefined;
}

/** The tools and the local port a control case must stub for this function, and the stubs of the
 *  pass-through wrappers its calls go through (`stdbuf -oL lake build`: a `stdbuf` that runs `lake`). */
export function stubTargets(t: Target, control: Record<string, unknown>): { tools: string[]; port?: number; wrapperStubs: Record<string, string> } {
  const code = functionSource(t);
  const usages = t.params.map((p) => paramUsage(code, p));
  const given = str(control.tool);
  const seen = new Set<string>();
  const fromCalls = toolsFromCalls(code, seen);
  const wrapperStubs = Object.fromEntries([...seen].filter((w) => PASSTHROUGH_WRAPPERS.has(w)).map((w) => [w, PASSTHROUGH]));
  // a URL the rule names for an HTTP call is an endpoint (below), not a program to stub
  const program = given && !given.includes('://') && !WRAPPERS.has(given.split('/').pop()!) ? given : undefined;
  // (never from the docstring: its usage examples name paths and values, not programs)
  const body = code.replace(/^(\s*(?:async\s+)?def\b[\s\S]*?\)\s*(?:->[^:\n]*)?:[ \t]*\n\s*)[rbu]?("{3}|'{3})[\s\S]*?\2/, '$1');
  const tools = program ? [program] : fromCalls.length ? fromCalls : toolNames(body);
  if (usages.includes('argv') || usages.includes('argvString')) tools.push(WITNESS_TOOL);
  const connectPort = /\b(?:connect|create_connection)\(\s*\(\s*[^,()]+,\s*(\d+)\s*\)/.exec(code)?.[1];
  const port = num(control.port) ?? (usages.includes('url') || usages.includes('port') ? WITNESS_PORT : undefined) ?? portNear(code, t.line - t.slice.info.startLine) ?? (connectPort ? Number(connectPort) : undefined);
  return { tools: [...new Set(tools)], port, wrapperStubs };
}

/** `requests.get(…self.<port>…)` / `urlopen(self.<url>)` / `requests.get(self.http_server + "/x")`: the
 *  `self` attribute carrying the address of an HTTP call, and a `self` double that points it at the
 *  case's first endpoint (`{vaudit-port0}`, a port allocated for the case). */
export function httpSelfAddress(code: string): { attr: string; self: Spec } | undefined {
  const call = /\b(?:requests\.(?:get|post|put|patch|delete|request|head)|urlopen|httpx\.(?:get|post|put|patch|delete|request))\(\s*([^,]+?)\s*(?:,|\)\s*(?:\.|$|\n))/s.exec(code);
  const url = (call?.[1] ?? '').trim();
  const portAttr = /\bself\.(\w*port\w*)\b/i.exec(url)?.[1];
  if (portAttr) return { attr: portAttr, self: { $double: 'self', attrs: { [portAttr]: { $port: 0 } } } };
  const urlAttr = /^self\.(\w+)$/.exec(url)?.[1];
  if (urlAttr) return { attr: urlAttr, self: { $double: 'self', attrs: { [urlAttr]: 'http://127.0.0.1:{vaudit-port0}/state' } } };
  // a base address the call extends: `self.http_server + "/terminal"`, f"{self.base}/run"
  const base = /^self\.(\w+)\s*\+/.exec(url)?.[1] ?? /^[rbu]?f(['"])\{self\.(\w+)\}/.exec(url)?.[2];
  if (base) return { attr: base, self: { $double: 'self', attrs: { [base]: 'http://127.0.0.1:{vaudit-port0}' } } };
  return undefined;
}

const HTTP_CALL = /\b(?:requests\.(?:get|post|put|patch|delete|request|head)|urlopen|httpx\.(?:get|post|put|patch|delete|request|head))\(/;

/** How many HTTP calls the function makes before the one the flagged line makes or reads (the nearest
 *  call at or before it): `requests.get(…)` then, on a failed status, a retry of it in a loop. A case
 *  that answers those earlier calls with a failure reaches the retry. 0 when the flagged call is the first. */
export function earlierHttpCalls(t: Target): number {
  const lines = functionSource(t).split('\n');
  const rel = t.line - t.slice.info.startLine;
  if (rel < 0 || rel >= lines.length) return 0;
  let at = rel;
  while (at >= 0 && !HTTP_CALL.test(lines[at]!)) at--;
  if (at < 0) return 0;
  return lines.slice(0, at).filter((l) => HTTP_CALL.test(l) && !/^\s*#/.test(l)).length;
}

/** The answer a retry path's earlier calls get: a failed status with an empty body. */
export const FAILED_ANSWER = { status: 500, body: '' };
/** The answer earlier calls get on a path that needs them to succeed (a download before an upload). */
export const OK_ANSWER = { status: 200, body: '' };

const PROCESS_CALL = /\b(?:subprocess\.)?(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)\(/;

/** How many runs of `tool` the function makes (process calls naming it) before the flagged line's
 *  (`dbt-cloud project list`, then `dbt-cloud environment list` flagged): a stub answers those first,
 *  then stalls. */
export function earlierProcessCalls(t: Target, tool: string): number {
  const lines = functionSource(t).split('\n');
  const rel = t.line - t.slice.info.startLine;
  if (rel <= 0 || rel >= lines.length) return 0;
  const named = new RegExp(String.raw`(?<![\w-])${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\w-])`);
  return lines.slice(0, rel).filter((l) => PROCESS_CALL.test(l) && named.test(l) && !/^\s*#/.test(l)).length;
}

/** What the function parses from a process's output before the flagged line, as JSON text:
 *  `v = json.loads(state.stdout)["data"]` then `v[0]["id"]` → `{"data": [{"id": "witness"}]}`
 *  (a list read by index holds one item; keys read on it are present). Undefined when it parses none. */
export function parsedOutput(t: Target): string | undefined {
  const code = functionSource(t).split('\n').slice(0, Math.max(0, t.line - t.slice.info.startLine)).join('\n');
  const m = /\b([A-Za-z_]\w*)\s*=\s*json\.loads\(\s*\w+\.stdout\s*\)((?:\s*\[\s*['"][^'"]+['"]\s*\])*)/.exec(code);
  if (!m) return undefined;
  const v = m[1]!;
  const chain = [...m[2]!.matchAll(/['"]([^'"]+)['"]/g)].map((k) => k[1]!);
  const rest = functionSource(t);
  const itemKeys = [...rest.matchAll(new RegExp(String.raw`\b${v}\s*\[\s*0\s*\]\s*\[\s*['"]([^'"]+)['"]`, 'g'))].map((k) => k[1]!);
  const dictKeys = [...rest.matchAll(new RegExp(String.raw`\b${v}\s*\[\s*['"]([^'"]+)['"]`, 'g'))].map((k) => k[1]!);
  let inner: unknown = itemKeys.length || new RegExp(String.raw`\b(?:len\(\s*${v}\s*\)|${v}\s*\[\s*0\s*\]|for\s+\w+\s+in\s+${v}\b)`).test(rest)
    ? [Object.fromEntries([...new Set(itemKeys)].map((k) => [k, 'witness']))]
    : dictKeys.length
      ? Object.fromEntries([...new Set(dictKeys)].map((k) => [k, 'witness']))
      : 'witness';
  for (const k of chain.reverse()) inner = { [k]: inner };
  return JSON.stringify(inner);
}

/** A stub that prints `answer` on its first `n` runs (as a tool whose earlier calls succeed), then
 *  never exits. It counts its runs in a file beside itself, in the case's own folder. */
export function answerThenStall(n: number, answer: string): string {
  const quoted = `'${answer.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\nc="$0.runs"\nk=$(cat "$c" 2>/dev/null || echo 0)\nk=$((k+1))\necho "$k" > "$c"\nif [ "$k" -le ${n} ]; then printf '%s' ${quoted}; exit 0; fi\nexec sleep 3600\n`;
}
