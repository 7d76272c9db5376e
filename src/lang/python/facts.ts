/**
 * Verifier-specific facts over a PythonAnalysis, shared by the Python rules:
 * set construction from sequences, unordered iteration, process / HTTP /
 * socket calls and their timeouts, captured output streams, HTTP state reads.
 */
import { type PyNode, field, named, unparen, firstNamed, walk } from './tree.js';
import type { CallInfo, FunctionInfo, PythonAnalysis } from './types.js';
import { ownValue } from '../../core/own.js';

const lastSeg = (q: string | undefined) => (q ? q.slice(q.lastIndexOf('.') + 1) : '');

export function callOf(a: PythonAnalysis, n: PyNode | undefined): CallInfo | undefined {
  if (!n) return undefined;
  const u = unparen(n);
  return u.type === 'call' ? a.call(u) : undefined;
}

function isDictLike(a: PythonAnalysis, n: PyNode): boolean {
  const u = unparen(n);
  if (u.type === 'dictionary' || u.type === 'dictionary_comprehension' || u.type === 'set' || u.type === 'set_comprehension') return true;
  const c = callOf(a, u);
  if (!c) return false;
  // dict views, sets, ranges, and listings whose names are unique by construction (a directory, a zip archive)
  return ['keys', 'set', 'frozenset', 'dict', 'range', 'Counter', 'fromkeys', 'listdir', 'namelist', 'iterdir', 'glob', 'iglob', 'rglob'].includes(c.method)
    || c.qualified === 'collections.Counter';
}

/** `set(seq)`, `frozenset(seq)`, a set comprehension or `dict.fromkeys(seq)`: duplicates of a sequence collapse. */
export function setFromSequence(a: PythonAnalysis, expr: PyNode): PyNode | undefined {
  for (const s of a.valueSources(expr)) {
    if (s.type === 'set_comprehension') return s;
    const c = callOf(a, s);
    if (!c) continue;
    const q = c.qualified ?? c.calleeText;
    if ((q === 'set' || q === 'frozenset' || c.calleeText === 'dict.fromkeys') && c.args.length === 1) {
      const arg = c.args[0]!;
      if (isDictLike(a, arg)) continue;
      if (arg.type === 'identifier' && a.valueSources(arg).every((v) => isDictLike(a, v))) continue;
      return s;
    }
  }
  return undefined;
}

/** Any set-valued expression (for the other side of a comparison). */
export function isSetValued(a: PythonAnalysis, expr: PyNode): boolean {
  if (setFromSequence(a, expr)) return true;
  return a.valueSources(expr).some((s) => {
    if (s.type === 'set' || s.type === 'set_comprehension') return true;
    const c = callOf(a, s);
    return !!c && (c.qualified === 'set' || c.qualified === 'frozenset' || c.method === 'keys');
  });
}

/** Why iterating `expr` has no intended order: dict/set iteration or a directory listing. */
export function unorderedIteration(a: PythonAnalysis, expr: PyNode, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  for (const s of a.valueSources(expr)) {
    const u = unparen(s);
    if (u.type === 'set' || u.type === 'set_comprehension') return 'a set';
    if (u.type === 'dictionary' || u.type === 'dictionary_comprehension') return 'a dict';
    const c = callOf(a, u);
    if (!c) continue;
    const q = c.qualified ?? '';
    if (q === 'sorted' || c.method === 'sorted') return undefined;
    if (['items', 'keys', 'values'].includes(c.method) && c.receiver && c.args.length === 0) return `a dict (\`.${c.method}()\`)`;
    if (['os.listdir', 'os.scandir', 'glob.glob', 'glob.iglob', 'os.walk'].includes(q)) return `a directory listing (\`${q}\`)`;
    if (['iterdir', 'glob', 'rglob'].includes(c.method) && c.receiver && !q.startsWith('glob.')) return `a directory listing (\`.${c.method}()\`)`;
    if (q === 'set' || q === 'frozenset') return 'a set';
    if ((q === 'list' || q === 'tuple' || q === 'iter' || q === 'enumerate' || q === 'reversed') && c.args[0]) {
      const inner = unorderedIteration(a, c.args[0], depth + 1);
      if (inner) return inner;
    }
  }
  return undefined;
}

// ---- processes, HTTP, sockets ------------------------------------------------------------

const SUBPROCESS_BLOCKING = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output']);
const REQUESTS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request']);

/** The call that produced the value of `expr` (following local copies), if any. */
export function producingCalls(a: PythonAnalysis, expr: PyNode): CallInfo[] {
  const out: CallInfo[] = [];
  for (const s of a.valueSources(expr)) {
    const c = callOf(a, s);
    if (c) out.push(c);
    else if (s.type === 'identifier') {
      // `with X(...) as s:` / `for` bindings: the def's value
      for (const d of a.reachingDefs(s) ?? []) {
        if (d.kind === 'with' && d.value) {
          const w = callOf(a, d.value);
          if (w) out.push(w);
        }
      }
    }
  }
  return out;
}

export type NetKind = 'subprocess' | 'popen' | 'requests' | 'requests-session' | 'httpx' | 'urlopen' | 'socket-connect' | 'create-connection';

/** Classify a call that can block on an external process or peer. */
export function blockingCall(a: PythonAnalysis, c: CallInfo): NetKind | undefined {
  const q = c.qualified ?? '';
  if (SUBPROCESS_BLOCKING.has(q)) return 'subprocess';
  if (q === 'subprocess.Popen') return 'popen';
  if (q.startsWith('requests.') && REQUESTS.has(lastSeg(q)) && q.split('.').length === 2) return 'requests';
  if (q.startsWith('httpx.') && REQUESTS.has(lastSeg(q)) && q.split('.').length === 2) return 'httpx';
  if (q === 'urllib.request.urlopen' || q === 'urllib2.urlopen') return 'urlopen';
  if (q === 'socket.create_connection') return 'create-connection';
  if (c.receiver && REQUESTS.has(c.method)) {
    for (const p of producingCalls(a, c.receiver)) {
      const pq = p.qualified ?? '';
      if (pq === 'requests.Session' || pq === 'requests.session' || pq === 'requests.sessions.Session') return 'requests-session';
    }
  }
  if (c.receiver && c.method === 'connect') {
    for (const p of producingCalls(a, c.receiver)) if (p.qualified === 'socket.socket') return 'socket-connect';
  }
  return undefined;
}

/** Whether a call passes a timeout (keyword, or its documented positional slot). */
export function hasTimeout(c: CallInfo, kind: NetKind): boolean {
  if (c.hasStarKwargs) return true;
  const t = c.kwargs.get('timeout');
  if (t) return !(kind === 'httpx' || kind === 'requests' || kind === 'requests-session') || t.type !== 'none';
  if (kind === 'httpx') return true; // httpx defaults to a 5-second timeout
  if (kind === 'urlopen') return c.args.length >= 3;
  if (kind === 'create-connection') return c.args.length >= 2;
  return false;
}

/** A `proc.wait()` / `proc.communicate()` on a Popen or asyncio process without a timeout. */
export function processWait(a: PythonAnalysis, c: CallInfo): 'popen' | 'asyncio' | undefined {
  if (!c.receiver || (c.method !== 'wait' && c.method !== 'communicate')) return undefined;
  if (c.kwargs.has('timeout') || c.hasStarKwargs) return undefined;
  if (c.method === 'wait' && c.args.length >= 1) return undefined;
  if (c.method === 'communicate' && c.args.length >= 2) return undefined;
  for (const p of producingCalls(a, c.receiver)) {
    const q = p.qualified ?? '';
    if (q === 'subprocess.Popen') return 'popen';
    if (q === 'asyncio.create_subprocess_exec' || q === 'asyncio.create_subprocess_shell') return 'asyncio';
  }
  // an awaited Popen: `proc = await asyncio.create_subprocess_exec(...)`
  for (const s of a.valueSources(c.receiver)) {
    if (s.type === 'await') {
      const inner = callOf(a, firstNamed(s));
      const q = inner?.qualified ?? '';
      if (q === 'asyncio.create_subprocess_exec' || q === 'asyncio.create_subprocess_shell') return 'asyncio';
    }
  }
  return undefined;
}

/** An asyncio wait bounded by `asyncio.wait_for(...)` or `async with asyncio.timeout(...)`. */
export function boundedByAsyncio(a: PythonAnalysis, n: PyNode): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'function_definition') break;
    if (p.type === 'call') {
      const q = a.call(p)?.qualified ?? '';
      if (q === 'asyncio.wait_for' || q === 'asyncio.timeout') return true;
    }
    if (p.type === 'with_statement' && /asyncio\.timeout(_at)?\(/.test(a.src(p).split('\n')[0] ?? '')) return true;
  }
  return false;
}

/** `socket.setdefaulttimeout(...)` anywhere in the module, or `sock.settimeout(...)` in the function. */
export function socketTimeoutSet(a: PythonAnalysis, receiver: PyNode, fn: FunctionInfo | undefined): boolean {
  const name = a.src(receiver);
  let found = false;
  walk(fn?.node ?? a.ast, (x) => {
    if (found) return false;
    if (x.type === 'call') {
      const t = a.src(field(x, 'function') ?? x);
      if (t === `${name}.settimeout` || t.endsWith('setdefaulttimeout')) found = true;
    }
    return undefined;
  });
  return found;
}

// ---- interactive tools -------------------------------------------------------------------

interface InteractiveTool { flag: string; ok: (args: string[]) => boolean }
const TEX: InteractiveTool = {
  flag: '`-interaction=nonstopmode -halt-on-error`',
  ok: (args) => args.some((x) => /^-{1,2}interaction[= ](nonstopmode|batchmode)$/.test(x) || /interaction=(nonstopmode|batchmode)/.test(x)),
};
const INTERACTIVE: Record<string, InteractiveTool> = {
  pdflatex: TEX, latex: TEX, xelatex: TEX, lualatex: TEX, tex: TEX, pdftex: TEX, etex: TEX, latexmk: TEX,
  ssh: { flag: '`-o BatchMode=yes`', ok: (args) => args.some((x) => /BatchMode=yes/i.test(x)) },
  scp: { flag: '`-o BatchMode=yes`', ok: (args) => args.some((x) => /BatchMode=yes/i.test(x)) },
  sudo: { flag: '`-n`', ok: (args) => args.includes('-n') || args.includes('--non-interactive') },
  'apt-get': { flag: '`-y`', ok: (args) => args.some((x) => x === '-y' || x === '--yes' || x === '--assume-yes') },
  apt: { flag: '`-y`', ok: (args) => args.some((x) => x === '-y' || x === '--yes' || x === '--assume-yes') },
};

/** Literal argv of a process call (list literal or a shell string), following a local variable. */
export function literalArgv(a: PythonAnalysis, c: CallInfo): string[] | undefined {
  const argv = c.args[0] ?? c.kwargs.get('args');
  if (!argv) return undefined;
  for (const s of a.valueSources(argv)) {
    const u = unparen(s);
    if (u.type === 'list' || u.type === 'tuple') {
      return named(u).map((e) => (e.type === 'string' && !e.children.some((k) => k.type === 'interpolation') ? a.src(e).replace(/^[rbuRBU]*(['"])([\s\S]*)\1$/, '$2') : '\u0000'));
    }
    if (u.type === 'string') return a.src(u).replace(/^[rbuRBUf]*(['"])([\s\S]*)\1$/, '$2').split(/\s+/).filter(Boolean);
  }
  return undefined;
}

/** An interactive tool started with the verifier's stdin and without its non-interactive flag. */
export function interactiveTool(a: PythonAnalysis, c: CallInfo): { tool: string; flag: string } | undefined {
  if (c.kwargs.has('stdin') || c.kwargs.has('input') || c.hasStarKwargs) return undefined;
  const argv = literalArgv(a, c);
  const first = argv?.[0];
  if (!argv || !first || first === '\u0000') return undefined;
  const tool = first.slice(first.lastIndexOf('/') + 1);
  const spec = ownValue(INTERACTIVE, tool);
  if (!spec || spec.ok(argv.slice(1))) return undefined;
  return { tool, flag: spec.flag };
}

// ---- output streams ----------------------------------------------------------------------

export interface StreamUse {
  /** The process call whose output is searched. */
  call: CallInfo;
  searched: 'stdout' | 'stderr';
  /** stderr not captured at all (check_output without stderr=STDOUT). */
  uncaptured: boolean;
}

const SEARCH_METHODS = new Set(['find', 'count', 'index', 'rfind', 'startswith', 'endswith']);
const RE_SEARCH = new Set(['re.search', 're.match', 're.fullmatch', 're.findall', 're.finditer']);
const PASSTHROUGH = new Set(['decode', 'lower', 'upper', 'strip', 'casefold', 'rstrip', 'lstrip', 'splitlines']);

/** The text searched by a membership test / search call (`'sorry' in r.stdout`, `re.search(p, out)`). */
export function searchedText(a: PythonAnalysis, n: PyNode): PyNode | undefined {
  if (n.type === 'comparison_operator') {
    const ops = n.children.filter((c) => !c.named).map((c) => c.type);
    const kids = named(n);
    if (ops.length === 1 && (ops[0] === 'in' || ops[0] === 'not in') && kids[1]) return kids[1];
    return undefined;
  }
  if (n.type === 'call') {
    const c = a.call(n);
    if (!c) return undefined;
    if (RE_SEARCH.has(c.qualified ?? '')) return c.args[1];
    if (SEARCH_METHODS.has(c.method) && c.receiver && c.args.length >= 1) return c.receiver;
  }
  return undefined;
}

function stripPassthrough(a: PythonAnalysis, n: PyNode): PyNode {
  let cur = unparen(n);
  for (;;) {
    const c = cur.type === 'call' ? a.call(cur) : undefined;
    if (c && c.receiver && PASSTHROUGH.has(c.method)) cur = unparen(c.receiver);
    else return cur;
  }
}

function mergesStderr(a: PythonAnalysis, c: CallInfo): boolean {
  const e = c.kwargs.get('stderr');
  return !!e && /(^|\.)STDOUT$/.test(a.src(e));
}

/** Which process stream a searched expression is, when it is one stream of a process whose other stream is ignored. */
export function blindStream(a: PythonAnalysis, text: PyNode, fn: FunctionInfo | undefined): StreamUse | undefined {
  const base = stripPassthrough(a, text);
  const scopeNode = fn?.node ?? a.ast;
  const readsAttr = (obj: string, attr: string) => {
    const want = `${obj}.${attr}`;
    // an attribute written `obj.attr` is that text in the function's source: no walk when it is absent
    if (!a.text.slice(scopeNode.start, scopeNode.end).includes(want)) return false;
    let found = false;
    walk(scopeNode, (x) => {
      if (found) return false;
      // compared in place: no slice of every attribute of the function
      if (x.type === 'attribute' && x.end - x.start === want.length && a.text.startsWith(want, x.start)) found = true;
      return undefined;
    });
    return found;
  };
  // r.stdout / r.stderr of a subprocess.run / Popen result
  if (base.type === 'attribute') {
    const attr = a.src(field(base, 'attribute')!);
    const obj = field(base, 'object');
    if ((attr === 'stdout' || attr === 'stderr') && obj && obj.type === 'identifier') {
      const calls = producingCalls(a, obj).filter((c) => c.qualified === 'subprocess.run' || c.qualified === 'subprocess.Popen');
      const c = calls[0];
      if (!c || mergesStderr(a, c)) return undefined;
      const other = attr === 'stdout' ? 'stderr' : 'stdout';
      if (readsAttr(a.src(obj), other)) return undefined;
      return { call: c, searched: attr, uncaptured: false };
    }
  }
  for (const s of a.valueSources(base)) {
    // out, err = p.communicate()
    if (s.type === 'identifier') {
      for (const d of a.reachingDefs(s) ?? []) {
        if (!d.value || !d.index || d.index.length !== 1) continue;
        const c = callOf(a, d.value);
        if (!c || c.method !== 'communicate') continue;
        const procCalls = c.receiver ? producingCalls(a, c.receiver) : [];
        if (procCalls.some((p) => mergesStderr(a, p))) return undefined;
        const otherIdx = d.index[0] === 0 ? 1 : 0;
        const target = d.node?.parent;
        const otherNode = target ? named(target)[otherIdx] : undefined;
        const otherName = otherNode?.type === 'identifier' ? a.src(otherNode) : undefined;
        const otherUsed = otherName && otherName !== '_' && a.scopes.reads.some((r) => r.name === otherName && r.node.start > d.node!.start && r.node.start <= scopeNode.end && r.node.start >= scopeNode.start);
        if (otherUsed) return undefined;
        return { call: c, searched: d.index[0] === 0 ? 'stdout' : 'stderr', uncaptured: false };
      }
    }
    const c = callOf(a, s);
    if (c && c.qualified === 'subprocess.check_output' && !mergesStderr(a, c)) return { call: c, searched: 'stdout', uncaptured: true };
  }
  return undefined;
}

// ---- HTTP state reads --------------------------------------------------------------------

/** A response parsed as JSON (`resp.json()`, `json.loads(resp.text)`) from an HTTP call. */
export function httpJsonRead(a: PythonAnalysis, c: CallInfo): CallInfo | undefined {
  const fromHttp = (e: PyNode | undefined, body = false): CallInfo | undefined => {
    if (!e) return undefined;
    for (const p of producingCalls(a, e)) {
      const k = blockingCall(a, p);
      if (!body && (k === 'requests' || k === 'requests-session' || k === 'httpx' || k === 'urlopen')) return p;
      // a project helper (`self.read_file(…)` of a base class) that returns a response, or its body
      if (a.httpReturnOf(p)?.kind === (body ? 'body' : 'response')) return p;
    }
    return undefined;
  };
  if (c.method === 'json' && c.args.length === 0 && c.receiver) return fromHttp(c.receiver);
  if ((c.qualified === 'json.loads' || c.qualified === 'json.load') && c.args[0]) {
    let e = unparen(c.args[0]);
    for (;;) {
      if (e.type === 'attribute' && ['text', 'content'].includes(a.src(field(e, 'attribute')!))) e = unparen(field(e, 'object')!);
      else if (e.type === 'call' && ['read', 'decode'].includes(a.call(e)?.method ?? '') && a.call(e)?.receiver) e = unparen(a.call(e)!.receiver!);
      else break;
    }
    return fromHttp(e) ?? fromHttp(e, true);
  }
  return undefined;
}

// ---- cross-layer: entry fields compared with == -------------------------------------------

/** Comparisons `==`/`!=` in `fn` whose operand is the entry's `field` (`item["value"]`, `item.get("value")`, or a local holding it). */
export function fieldEqualities(a: PythonAnalysis, fn: FunctionInfo, fieldName: string): PyNode[] {
  const entryParam = fn.classNode ? fn.params[1] : fn.params[0];
  if (!entryParam) return [];
  const isField = (e: PyNode): boolean => {
    const u = unparen(e);
    if (u.type === 'subscript') {
      const v = field(u, 'value');
      const k = field(u, 'subscript');
      return !!v && !!k && a.src(v) === entryParam && /^(['"])(.*)\1$/.test(a.src(k)) && a.src(k).slice(1, -1) === fieldName;
    }
    const c = callOf(a, u);
    if (c && c.method === 'get' && c.receiver && a.src(c.receiver) === entryParam && c.args[0]) return a.src(c.args[0]).slice(1, -1) === fieldName;
    return false;
  };
  const derived = (e: PyNode): boolean => {
    const u = unparen(e);
    if (isField(u)) return true;
    if (u.type === 'identifier') return a.valueSources(u).some((s) => s !== u && isField(s));
    return false;
  };
  const out: PyNode[] = [];
  walk(fn.node, (x) => {
    if (x !== fn.node && (x.type === 'function_definition' || x.type === 'lambda')) return false;
    if (x.type !== 'comparison_operator') return undefined;
    const ops = x.children.filter((c) => !c.named).map((c) => c.type);
    if (ops.length !== 1 || (ops[0] !== '==' && ops[0] !== '!=')) return undefined;
    if (named(x).some(derived)) out.push(x);
    return undefined;
  });
  return out;
}

/** A float literal with a fractional part (`0.1`, `2.5e-3`), not `1.0`. */
export function isNonIntegerFloat(a: PythonAnalysis, n: PyNode): boolean {
  const u = unparen(n);
  const lit = u.type === 'unary_operator' ? firstNamed(u) : u;
  if (!lit || lit.type !== 'float') return false;
  const v = Number(a.src(lit).replace(/_/g, ''));
  return Number.isFinite(v) && !Number.isInteger(v);
}
