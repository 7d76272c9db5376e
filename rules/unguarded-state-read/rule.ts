/**
 * unguarded-state-read — application state fetched and parsed on the verdict path with no handling
 * of an unavailable or malformed endpoint (VER-007).
 */
import { defineRule } from '../../src/contract/rule.js';
import { httpJsonRead } from '../../src/lang/python/facts.js';
import { noneReturn, stateOrigin, unguardedItemRead, unguardedLookupRead, unguardedMatchRead, unguardedNoneOpen, unguardedNoneUse, type NoneContext, type StateContext, type StateRead, type NoneOpen, type NoneUse } from '../../src/lang/python/state-reads.js';
import { rel } from '../../src/core/paths.js';
import { field, named, unparen, walk } from '../../src/lang/python/tree.js';
import { expectedParams } from '../../src/suites/expected-input.js';
import { verifierSide } from '../../src/suites/verifier-side.js';
import { callersOf } from '../../src/suites/harness/py-values.js';
import type { CallInfo, PyNode, PythonAnalysis } from '../../src/lang/python/types.js';
import type { RuleContext } from '../../src/contract/rule.js';
import * as path from 'node:path';
import type { AnyNode, Node, Program } from 'acorn';
import { isJsFunction, programOf } from '../../src/lang/js/index.js';
import { jsVerdictScope } from '../../src/suites/verdict.js';
import { jsStateReads, withSameFileCallees } from './js-reads.js';
import { alwaysMatched, matchTestOf, returnsOf } from './match-returns.js';

type Msg = 'unguarded' | 'shortRead' | 'noMatch' | 'noElement' | 'noRow' | 'noneOpen' | 'noneUse' | 'jsUnguarded' | 'jsShortRead' | 'jsNoMatch';

const CATCHES = new Set(['ValueError', 'JSONDecodeError', 'RequestException', 'Exception', 'BaseException', 'HTTPError', 'InvalidJSONError']);

export default defineRule<Msg>({
  meta: {
    id: 'unguarded-state-read',
    description: 'State read on the grading path with no handling of its absence: an HTTP reply parsed as JSON, an item or match of short state, a value that is None on failure opened or used.',
    defaultSeverity: 'error',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript', 'typescript'],
    messages: {
      unguarded: {
        what: '`{{expr}}` parses application state with no handling of an unavailable or non-JSON reply.',
        why: 'When the app has closed or crashed, the exception escapes the evaluation and the run looks like an infrastructure failure instead of a failed check.',
        fix: 'Catch `requests.RequestException` and `ValueError` here and return a failed verdict.',
      },
      shortRead: {
        what: '`{{expr}}` reads {{what}} of {{origin}} with no check that the state has that item.',
        why: 'When the state is shorter than expected (an empty output, a line without the separator, no matching element or row), the IndexError {{outcome}}.',
        fix: 'Check the length (or that the separator is present) first and return a failed verdict with a message saying what was missing.',
      },
      jsUnguarded: {
        what: '`{{expr}}` parses {{what}} with no check of the reply\'s status (`ok`) and no `catch`.',
        why: 'When the app is down or answers with an error page, the parse throws (a SyntaxError on HTML, a TypeError on a failed fetch) and the exception escapes the verifier: the run ends in an error instead of a verdict.',
        fix: 'Test `res.ok` (and catch the parse error) first, and return a failed verdict with a message saying what the app answered.',
      },
      jsShortRead: {
        what: '`{{expr}}` reads {{what}} {{origin}} and dereferences it with no check that the state has that item.',
        why: 'When the state is shorter than expected (an empty reply list, no matching element or row, a line without the separator), the item is `undefined` and reading a member of it throws a TypeError that escapes the verifier: the run ends in an error instead of a verdict.',
        fix: 'Check the length (or that the separator is present) first, or use optional chaining, and return a failed verdict with a message saying what was missing.',
      },
      jsNoMatch: {
        what: '`{{expr}}` reads {{what}} on {{origin}} with no check that it matched.',
        why: 'When the state does not match, `match`/`exec` return `null` and indexing it throws a TypeError that escapes the verifier: the run ends in an error instead of a verdict.',
        fix: 'Test the match (`if (!m) return <failed verdict with a message>`) before reading its groups.',
      },
      noMatch: {
        what: '`{{expr}}` reads {{what}} on {{origin}} with no check that it matched.',
        why: 'When the state does not match, the search returns None and the AttributeError/TypeError {{outcome}}.',
        fix: 'Test the match (`if m is None: return <failed verdict with a message>`) before reading its groups.',
      },
      noElement: {
        what: '`{{expr}}` reads {{what}} on {{origin}} with no check that an element was found.',
        why: 'When the state has no such element, the lookup returns None and the AttributeError/TypeError {{outcome}}.',
        fix: 'Test the element (`if el is None: return <failed verdict with a message>`) before reading it.',
      },
      noRow: {
        what: '`{{expr}}` reads {{what}} with no check that a row matched.',
        why: 'When no row matches, `fetchone()` returns None and the TypeError {{outcome}}.',
        fix: 'Test the row first (`row = cur.fetchone()`, `if row is None: return <failed verdict with a message>`).',
      },
      noneUse: {
        what: '`{{expr}}` uses {{source}} with no test that it is not None.',
        why: 'When {{when}} {{outcome}}.',
        fix: 'Test the value first (`if result is None: return <failed verdict with a message>`).',
      },
      noneOpen: {
        what: '`{{expr}}` opens {{source}} with no test that it is not None.',
        why: 'When the state is missing (the file was not saved, the app did not answer) {{outcome}}.',
        fix: 'Test the value first (`if path is None: return <failed verdict with a message>`).',
      },
    },
    docs: {
      whatItDoes: 'Flags `response.json()` and `json.loads(response.text)` on the reply of a `requests`/`httpx`/`urlopen` call when no enclosing `try` catches `ValueError`/`RequestException` (or broader) and no decorator of the function turns errors into a verdict. Flags reads that assume the shape of state the verifier read (a command\'s output, an HTTP reply, a file, a database query, the agent\'s result a routed metric receives, text a function is handed and parses line by line — a test log, a command\'s output): an item past the first of a split (`line.split(":")[1]`; a prefix test of a computed status such as `line.startswith(status)` does not guard a whitespace split, since a line may be the status alone), an item of a list parsed from an HTTP reply\'s JSON (`resp.json()["items"][0]`, `reviews[-1]` of `reviews = resp.json()`: an empty reply list has no first or last item; a task\'s own JSON file is not state), an item of a query or search result (`re.findall(…)[0]`, `soup.find_all(…)[0]`, `cur.fetchall()[0]`, a live page\'s `page.query_selector_all(…)[0]` / `driver.find_elements(…)[0]`, a filtered list comprehension), or a group of a regular-expression match (`re.search(p, out).group(1)`; not when the text searched is the result of a project function every `return` of which gives a value the pattern matches: a fallback literal it matches, or a value returned only after a test of the same pattern, `if not re.search(p, url): return FALLBACK` then `return url`), or a member of the one element a lookup returns, None when nothing matches (`soup.find("h1").get_text()`, `select_one(…)["href"]`, ElementTree/lxml `.find(…).text` on a parsed document, Playwright `page.query_selector(…)` then `.inner_text()`), when no length, truthiness or separator test and no enclosing handler covers the read (a test may be a project helper that tests the value it is passed, `if not _nonempty(items):`; `any(… for x in items)` in a test gives one item; an `any()` or helper test counts only where its outcome proves the value present at the read — the read in that branch, after an `assert` of it, or after an `if` whose other outcome leaves by `return`, `raise`, `continue`, `break`, a call that never returns (`sys.exit`, `os._exit`, `pytest.fail`, unittest\'s `self.fail`, a project helper whose every path raises) or an `if`/`else` whose branches all leave (`if any(r["status"] == "error" for r in rows): return False` does not guard `rows[0]`, and a helper that returns `x is None` guards only where it is false); `isinstance(el, Tag)` tests an element; a compiled pattern\'s `.match(line)` tests a line as `re.match(p, line)` does; the same lookup, or the lookup of all such elements, tested before, `if not soup.select(s):` then `soup.select_one(s)`; a Playwright `page.wait_for_selector(s)` statement before `page.query_selector(s)`, unless it waits for the element to be hidden or detached), and no handler covers it in every project caller of the function (each call sits in a `try` that catches the error or a base and does not re-raise it or turn it into a passing verdict; a function with no caller, one the suites bind or route, or one named anywhere else than in a call keeps its finding); a length compared with a number that is too small for the item (`if len(parts) > 1:` before `parts[2]`) is no guard, nor is a test of another list. Flags a column of `fetchone()` (`cur.fetchone()[0]`, or a local holding the row) when the query in the code is a SELECT with a WHERE and no aggregate (one that can match no row: `fetchone()` returns None) and the row is not tested. Flags a file opened (`open`, `Image.open`, `pd.read_csv`, `openpyxl.load_workbook`, `Document`, `zipfile.ZipFile`…) on a value that is None when what produced it failed — the result of a getter the task routes to the metric (OSWorld family: `result.type` → `get_<type>`), or of a project function called directly — whose own code returns None on some path (`return None`, a bare `return`, a local left None, an item of a list it fills with None), when the verifier neither tests the value nor handles the exception. Flags the same None result used where None raises: a membership test on it (`name in result`), an iteration (`for row in result`, `len(result)`, `sorted(result)`), an item (`result[key]`) or a member (`result.get(key)`, `result.lower()`), when the function has no test of the value (`is None`, truthiness, `isinstance`) and no handler of the error — or has one that turns the error into a passing verdict (`except Exception: return 1.0`). Only a None that means the state is missing counts: one the getter or helper returns after a test of the state (`if not os.path.exists(p): return None`, a non-200 reply, no row, no match, a local left None when nothing matched, a handler of only absent-state errors such as `except FileNotFoundError: return None`); a None it returns only from another exception handler (`except: return`, `except requests.RequestException`, a local set before a `try` whose body always assigns it, a `return None` after a `try` whose body always returns) means the read itself failed (an API client, a credential, a connection), where an error out of the verifier is the right outcome — unless that `try` indexes the rows a query fetched (`json.loads(cur.fetchone()[0])`, `rows[0]` of `fetchall()`) and the handler catches what an empty result raises (`TypeError`, `IndexError`, `Exception`): an empty result is the agent\'s app missing the row, a state of the agent — and is reported only when a handler turns that error into a passing verdict. A helper called on the metric\'s gold (a task-side parameter) does not read state and is left out. In JavaScript and TypeScript verifiers (the verdict functions of an eval module a task names and the same-file functions they call; a project whose tasks name only Python modules has no JS verifier): `res.json()` or `JSON.parse(await res.text())` of a `fetch`/`node-fetch`/`undici`/Playwright `request` reply with no test of `res.ok`/`res.status` and no `try`/`.catch`; an item of state data dereferenced (`body.orders[0].status`, `(await page.$$("li"))[0].textContent()`, `rows[0].name` of a query, `todos[0].title` of a `page.evaluate` result, the `data` of an `axios` reply) with no length or truthiness test; an item past the first of a split of state dereferenced (`line.split(" ")[1].trim()`) with no length or separator test; and any index of a `match`/`exec` on state (`null` on no match). An index past the end is `undefined` in JS, so an item that is only compared (not dereferenced) is not reported.',
      why: 'Closing or losing the app made its state endpoint return non-JSON; the exception propagated through evaluation and the task was skipped as an infrastructure error instead of failing (VER-007).',
      references: ['VER-007'],
    },
    confirm: {
      oracle: 'unguarded-state-read',
      description: 'Runs the function with the state endpoint doubled as unavailable and as non-JSON; an exception escaping the function confirms the unguarded read.',
    },
  },
  create(ctx) {
    const jsRead = (node: AnyNode, c: RuleContext<Msg>, ancestors: readonly AnyNode[]) => {
      const program = programOf(ancestors);
      if (!program) return;
      const fns = jsVerifierFunctions(ctx.project, c.unit.file.path, program);
      if (!fns) return;
      const fn = [...ancestors].reverse().find(isJsFunction);
      if (!fn || !fns.has(fn)) return;
      const r = jsStateReads(program, c.unit.file.source.text).read(node, ancestors, fn);
      if (!r) return;
      c.report({ messageId: r.messageId, data: { expr: c.unit.file.source.text.slice(r.node.start, r.node.end), what: r.what, origin: r.origin }, at: r.node, group: `js:${r.group}` });
    };
    return {
      javascript: {
        CallExpression: jsRead,
        MemberExpression: jsRead,
      },
      python: {
        subscript(node, c) {
          const a = c.python;
          const cx = stateContext(node, c);
          const r = unguardedItemRead(a, node, cx) ?? unguardedMatchRead(a, node, cx);
          if (r) reportRead(r, a, c, r.row ? 'noRow' : r.what.startsWith('a match') ? 'noMatch' : 'shortRead');
          const l = r ? undefined : unguardedLookupRead(a, node, cx);
          if (l) reportRead(l, a, c, 'noElement');
        },
        attribute(node, c) {
          const l = unguardedLookupRead(c.python, node, stateContext(node, c));
          if (l) reportRead(l, c.python, c, 'noElement');
        },
        identifier(node, c) {
          const u = unguardedNoneUse(c.python, node, (agentOnly) => noneContext(node, c, agentOnly));
          if (u) reportNoneUse(u, c.python, c);
        },
        call(node, c) {
          const a = c.python;
          const m = node.type === 'call' && /\.(?:group|groups|groupdict|start|end|span)\s*\($/.test(a.src(field(node, 'function') ?? node) + '(') ? unguardedMatchRead(a, node, stateContext(node, c)) : undefined;
          if (m) reportRead(m, a, c, 'noMatch');
          const o = node.type === 'call' ? unguardedNoneOpen(a, node, (agentOnly) => noneContext(node, c, agentOnly)) : undefined;
          if (o) reportNoneOpen(o, a, c);
          const u = unguardedNoneUse(a, node, (agentOnly) => noneContext(node, c, agentOnly));
          if (u) reportNoneUse(u, a, c);
          const call = a.call(node);
          if (!call) return;
          const source = httpJsonRead(a, call);
          if (!source) return;
          if (a.handlersAt(call.node).some((h) => h.types === null || h.types.some((t) => CATCHES.has(t)))) return;
          const fn = a.functionAt(call.node);
          if (fn && a.decoratorSwallow(fn)) return;
          const port = /https?:\/\/(?:localhost|127\.0\.0\.1):(\d+)/.exec(a.src(fn?.node ?? a.ast) + a.text)?.[1];
          c.report({
            messageId: 'unguarded',
            data: { expr: a.src(call.node) },
            at: call.node,
            control: { oracle: 'unguarded-state-read', file: a.path, line: a.line(call.node), qualname: fn?.qualname ?? '', ...(port ? { source: { port: Number(port) } } : {}) },
            // every parse of one response is one defect: reported where it is parsed first
            group: `${source.node.start}`,
          });
        },
      },
    };
  },
});

type PyCtx = RuleContext<Msg> & { python: PythonAnalysis };

const JS_EXT = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '/index.ts', '/index.js'];
const IMPORTS = /\bimport\s+(?:(\w+)\s*,?\s*)?(?:\{([^}]*)\}|\*\s+as\s+\w+)?\s*from\s*['"](\.{1,2}\/[^'"]+)['"]|\b(?:const|let|var)\s+(?:\{([^}]*)\}|(\w+))\s*=\s*require\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Names the JS/TS eval modules a task names import from `file` by a relative specifier ('*': a namespace or whole-module import). */
function importedByEvals(project: RuleContext<Msg>['project'], file: string): Set<string> {
  const names = new Set<string>();
  const evals = new Set<string>();
  for (const s of project.suites) for (const t of s.tasks) for (const e of t.entries) if (e.target && /\.[cm]?[jt]sx?$/.test(e.target.file)) evals.add(e.target.file);
  const noExt = file.replace(/\.[cm]?[jt]sx?$/, '');
  for (const ev of evals) {
    const text = project.files.get(ev)?.source.text;
    if (!text) continue;
    for (const m of text.matchAll(IMPORTS)) {
      const spec = m[3] ?? m[6]!;
      const target = path.resolve(path.dirname(ev), spec);
      if (!JS_EXT.some((x) => target + x === file || (x === '' && target.replace(/\.[cm]?[jt]sx?$/, '') === noExt))) continue;
      const list = m[2] ?? m[4];
      if (m[1] || m[5]) names.add('default');
      if (list !== undefined) for (const part of list.split(',')) { const n = part.trim().split(/\s+as\s+|\s*:\s*/)[0]?.trim(); if (n) names.add(n); }
      else if (!m[1] && !m[5]) names.add('*');
    }
  }
  return names;
}

/** The module-level functions of a program with these exported names ('*': every one). */
function importedFunctions(program: Program, names: ReadonlySet<string>): Node[] {
  if (!names.size) return [];
  const out: Node[] = [];
  const take = (name: string | undefined, fn: Node | null | undefined, isDefault = false) => {
    if (fn && isJsFunction(fn) && (names.has('*') || (name && names.has(name)) || (isDefault && names.has('default')))) out.push(fn);
  };
  for (const st0 of program.body) {
    const isDefault = st0.type === 'ExportDefaultDeclaration';
    const st = st0.type === 'ExportNamedDeclaration' || st0.type === 'ExportDefaultDeclaration' ? st0.declaration : st0;
    if (!st) continue;
    if (st.type === 'FunctionDeclaration') take(st.id?.name, st, isDefault);
    else if (st.type === 'VariableDeclaration') for (const d of st.declarations) take(d.id.type === 'Identifier' ? d.id.name : undefined, d.init);
    else if (isDefault) take(undefined, st as Node, true);
  }
  return out;
}

/** The verifier functions of a JS/TS module: the verdict functions of an eval module a task names and
 *  the same-file functions they call. A project whose tasks name no JS/TS module has no JS verifier
 *  (its JS is app or browser code): undefined. With no task at all (verifier code linted alone), the
 *  module's exported functions and what they call. */
const jsScopeCache = new WeakMap<Program, Set<Node> | null>();
function jsVerifierFunctions(project: RuleContext<Msg>['project'], file: string, program: Program): ReadonlySet<Node> | undefined {
  const hit = jsScopeCache.get(program);
  if (hit !== undefined) return hit ?? undefined;
  const scope = jsVerdictScope(project, file, program);
  // a helper module an eval module imports from (`import { readState } from "./lib/state"`): the functions it imports
  const start = scope.known && !scope.functions.size ? importedFunctions(program, importedByEvals(project, file)) : scope.functions;
  const out = !scope.known && project.suites.some((s) => s.tasks.length) ? null : withSameFileCallees(program, start);
  jsScopeCache.set(program, out && out.size ? out : null);
  return out && out.size ? out : undefined;
}

/** The parameters of a routed metric that carry the agent's result (OSWorld family: the first), and
 *  what project functions return: a getter the suites route (`result` role) reads state; a helper whose
 *  return value is state (one level) too. */
function stateContext(node: PyNode, c: PyCtx): StateContext {
  const fn = c.python.functionAt(node);
  const params = fn ? expectedParams(c.project, c.python.path, fn) : undefined;
  const agent = params?.agent;
  const getters = resultGetters(c.project);
  const callee = (a: PythonAnalysis, call: CallInfo): string | undefined => {
    if (call.fn.type !== 'identifier') return undefined;
    const r = c.project.python.analysis(a.path) && c.project.python.resolveFunction(a.path, call.calleeText);
    if (!r) return undefined;
    if (getters.has(`${r.file}\0${r.fn.qualname}`)) return `the getter \`${call.calleeText}\``;
    const b = c.project.python.analysis(r.file);
    if (!b) return undefined;
    let found: string | undefined;
    walk(r.fn.node, (x) => {
      if (found) return false;
      if (x.type === 'function_definition' && x !== r.fn.node) return false;
      if (x.type === 'return_statement' && named(x)[0]) found = stateOrigin(b, named(x)[0]!, {});
      return undefined;
    });
    return found && `the result of \`${call.calleeText}\` (${found})`;
  };
  const resolve = (a: PythonAnalysis, call: CallInfo) => {
    const r = c.project.python.resolveFunction(a.path, call.calleeText);
    const b = r && c.project.python.analysis(r.file);
    return r && b ? { a: b, fn: r.fn } : undefined;
  };
  const alwaysMatches = (a: PythonAnalysis, search: CallInfo): boolean => {
    const t = matchTestOf(search.node);
    const calls = t && search.args[1] ? producingCalls(a, search.args[1]) : [];
    return !!t && calls.length > 0 && calls.every((call) => {
      const r = resolve(a, call);
      return !!r && alwaysMatched(returnsOf(r.a, r.fn, t, { positional: call.args.length, keywords: new Set(call.kwargs.keys()), star: call.hasStarArgs || call.hasStarKwargs }));
    });
  };
  return { ...(agent ? { agent } : {}), ...(params ? { task: params.task } : {}), callee, callerHandles: (a, n, types) => everyCallerHandles(c.project, a, n, types, 0), resolve, alwaysMatches };
}

/** The calls of plain functions (`get_url(env)`) whose result `n` is: the call itself, or a local bound only to such calls. */
function producingCalls(a: PythonAnalysis, n: PyNode): CallInfo[] {
  const u = unparen(n);
  const callOfPlain = (x: PyNode | undefined): CallInfo | undefined => {
    const c = x && unparen(x).type === 'call' ? a.call(unparen(x)) : undefined;
    return c && c.fn.type === 'identifier' ? c : undefined;
  };
  if (u.type === 'call') return callOfPlain(u) ? [callOfPlain(u)!] : [];
  if (u.type !== 'identifier') return [];
  const defs = a.reachingDefs(u);
  if (!defs?.length) return [];
  const calls = defs.map((d) => ((d.kind === 'assign' || d.kind === 'walrus') && !d.index?.length ? callOfPlain(d.value) : undefined));
  return calls.every((c) => c !== undefined) ? (calls as CallInfo[]) : [];
}

/** A verdict a handler returns that is a pass: the error it catches is not a failed check there. */
const PASSING = /^(?:1|1\.0*|True|100|100\.0*)$/;

/** Every call of the module-level function holding `n` in the project sits in a `try` whose handler catches
 *  one of `types` (or a base, or a bare `except`), does not re-raise and does not return a passing verdict —
 *  or in a function whose own callers all do. A function with no caller, one the suites bind or route (the
 *  harness calls it), a decorated one or one named anywhere but in a call or an import keeps its finding. */
function everyCallerHandles(project: PyCtx['project'], a: PythonAnalysis, n: PyNode, types: readonly string[], depth: number): boolean {
  const fn = a.functionAt(n);
  if (!fn || depth > 3 || fn.qualname !== fn.name || fn.decorators.length || boundBySuites(project).has(`${a.path}\0${fn.qualname}`)) return false;
  if (!onlyCalled(project, a.path, fn.node, fn.name)) return false;
  const sites = callersOf(project.python, a.path, fn);
  if (!sites.length) return false;
  return sites.every((s) => {
    const h = s.a.handlersAt(s.node).find((x) => x.types === null || x.types.some((t) => types.includes(t) || t === 'Exception' || t === 'BaseException'));
    if (h) return !h.reraises && !(h.returns && PASSING.test(s.a.src(h.returns).replace(/\s+/g, '')));
    return everyCallerHandles(project, s.a, s.node, types, depth + 1);
  });
}

/** Every mention of `name` in the project's Python is the definition `def`, an import, or a call. */
const calledCache = new WeakMap<object, Map<PyNode, boolean>>();
function onlyCalled(project: PyCtx['project'], file: string, def: PyNode, name: string): boolean {
  let m = calledCache.get(project);
  if (!m) calledCache.set(project, (m = new Map()));
  let hit = m.get(def);
  if (hit === undefined) m.set(def, (hit = onlyCalledIn(project, file, def, name)));
  return hit;
}

function onlyCalledIn(project: PyCtx['project'], file: string, def: PyNode, name: string): boolean {
  const word = new RegExp(`\\b${name}\\b`);
  for (const f of project.python.files()) {
    if (!word.test(project.python.text(f) ?? '')) continue;
    const b = project.python.analysis(f);
    if (!b) return false;
    let ok = true;
    walk(b.ast, (x) => {
      if (!ok) return false;
      if (x.type !== 'identifier' || b.src(x) !== name) return undefined;
      const p = x.parent;
      if (!p) return undefined;
      if (p.type === 'function_definition' && field(p, 'name') === x) { if (!(f === file && p === def)) ok = false; return undefined; }
      for (let q: PyNode | null = p; q; q = q.parent) if (q.type === 'import_from_statement' || q.type === 'import_statement') return undefined;
      const callee = p.type === 'attribute' && field(p, 'attribute') === x ? p : x;
      if (!(callee.parent?.type === 'call' && field(callee.parent, 'function') === callee)) ok = false;
      return undefined;
    });
    if (!ok) return false;
    // a mention outside code (a string, a comment: a lookup by name) is not an identifier
    const ids: PyNode[] = [];
    walk(b.ast, (x) => { if (x.type === 'identifier' && b.src(x) === name) ids.push(x); });
    if ((b.text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0) !== ids.length) return false;
  }
  return true;
}

const boundCache = new WeakMap<object, Set<string>>();
/** `file\0qualname` of the functions the suites bind an entry to or route a getter to: the harness calls them. */
function boundBySuites(project: PyCtx['project']): Set<string> {
  let s = boundCache.get(project);
  if (s) return s;
  s = new Set();
  for (const suite of project.suites)
    for (const t of suite.tasks)
      for (const e of t.entries) {
        if (e.binding) s.add(`${e.binding.file}\0${e.binding.qualname}`);
        for (const r of e.routes ?? []) if (r.binding) s.add(`${r.binding.file}\0${r.binding.qualname}`);
      }
  boundCache.set(project, s);
  return s;
}

const getterCache = new WeakMap<object, Set<string>>();
/** `file\0qualname` of the functions a task routes as its `result` getter. */
function resultGetters(project: PyCtx['project']): Set<string> {
  let s = getterCache.get(project);
  if (s) return s;
  s = new Set();
  for (const suite of project.suites) for (const t of suite.tasks) for (const e of t.entries) for (const r of e.routes ?? []) if (r.role === 'result' && r.binding) s.add(`${r.binding.file}\0${r.binding.qualname}`);
  getterCache.set(project, s);
  return s;
}

function reportRead(r: StateRead, a: PythonAnalysis, c: PyCtx, messageId: 'shortRead' | 'noMatch' | 'noElement' | 'noRow'): void {
  const fn = a.functionAt(r.node);
  // on the grading path only, when the suites say where it is (an in-VM server or an agent reads its own state)
  const side = verifierSide(c.project);
  if (side && !(fn && side.has(`${a.path}\0${fn.qualname}`))) return;
  const swallow = fn ? a.decoratorSwallow(fn) : undefined;
  const outcome = swallow?.verdict
    ? `is turned into \`${swallow.verdict}\` by the decorator \`${swallow.decorator ?? ''}\`: the agent is scored as failing for a crash of the verifier`
    : 'escapes the verifier: the run ends in an error instead of a verdict';
  // a match read: the oracle runs it with a subject that does not match (matchPlan in oracle.ts)
  // an element read: no case is built (the oracle says why)
  const control = messageId === 'noMatch' && fn ? { control: { oracle: 'unguarded-state-read', file: a.path, line: a.line(r.node), qualname: fn.qualname, match: true } }
    : messageId === 'noElement' && fn ? { control: { oracle: 'unguarded-state-read', file: a.path, line: a.line(r.node), qualname: fn.qualname, element: true } } : {};
  c.report({ messageId, data: { expr: a.src(r.node), what: r.what, origin: r.origin, outcome }, at: r.node, group: `read:${r.group}`, ...control });
}

/** The getters the suites route to the agent's parameter of the function at `node` that return None on
 *  some path, and the project functions a call reaches that do (described with where they return None). */
const noneCache = new WeakMap<object, readonly [WeakMap<object, StateContext & NoneContext>, WeakMap<object, StateContext & NoneContext>]>();
/** With `agentOnly`, only the None a getter returns when the state is missing (a test of the state), not the
 *  None it returns from an exception handler (the read itself failed: see `noneReturn`). */
function noneContext(node: PyNode, c: PyCtx, agentOnly = false): StateContext & NoneContext {
  const fn = c.python.functionAt(node);
  const key = fn?.node ?? c.python.ast;
  // per run's project: a context holds the project it was built from (its routes, its analyses), and an editor
  // session keeps the trees of unchanged files, so a cache keyed by their nodes alone would keep every old project
  let caches = noneCache.get(c.project);
  if (!caches) noneCache.set(c.project, (caches = [new WeakMap(), new WeakMap()]));
  const cache = caches[agentOnly ? 1 : 0];
  let hit = cache.get(key);
  if (!hit) cache.set(key, (hit = noneContextOf(node, c, agentOnly)));
  return hit;
}

function noneContextOf(node: PyNode, c: PyCtx, agentOnly: boolean): StateContext & NoneContext {
  const a = c.python;
  const fn = a.functionAt(node);
  const params = fn ? expectedParams(c.project, a.path, fn) : undefined;
  const where = (file: string, line: number) => `${rel(c.project.root, file)}:${line}`;
  const returnsNone = (file: string, qualname: string): string | undefined => {
    const b = c.project.python.analysis(file);
    const f = b?.functionByQualname(qualname);
    const site = b && f ? noneReturn(b, f.node, agentOnly) : undefined;
    return site && b ? where(file, b.line(site)) : undefined;
  };
  let agentNone: string | undefined;
  if (fn && params?.agent.size) {
    const found = new Map<string, string>();
    for (const g of routedGetters(c.project).get(`${a.path}\0${fn.qualname}`) ?? []) {
      const [file, qualname] = g.split('\0') as [string, string];
      const at = returnsNone(file, qualname);
      if (at) found.set(qualname, at);
    }
    const list = [...found].sort((x, y) => x[0].localeCompare(y[0]));
    if (list.length === 1) agentNone = `the getter \`${list[0]![0]}\`, which can return None (${list[0]![1]}),`;
    else if (list.length) agentNone = `the getters ${list.slice(0, 3).map(([q, at]) => `\`${q}\` (None at ${at})`).join(', ')}${list.length > 3 ? ` and ${list.length - 3} more` : ''},`;
  }
  const calleeNone = (b: PythonAnalysis, call: CallInfo): string | undefined => {
    if (call.fn.type !== 'identifier') return undefined;
    const r = c.project.python.resolveFunction(b.path, call.calleeText);
    if (!r) return undefined;
    const at = returnsNone(r.file, r.fn.qualname);
    return at && `\`${call.calleeText}\`, which can return None (${at}),`;
  };
  const gold = params ? new Set([...params.task].filter((t) => t !== params.options)) : undefined;
  return { ...(params ? { agent: params.agent, task: params.task } : {}), ...(gold?.size ? { gold } : {}), ...(agentNone ? { agentNone } : {}), calleeNone };
}

const routedCache = new WeakMap<object, Map<string, Set<string>>>();
/** Per routed metric (`file\0qualname`): the `file\0qualname` of the `result` getters the tasks bound to it route. */
function routedGetters(project: PyCtx['project']): Map<string, Set<string>> {
  let m = routedCache.get(project);
  if (m) return m;
  m = new Map();
  for (const suite of project.suites)
    for (const t of suite.tasks)
      for (const e of t.entries) {
        if (!e.binding) continue;
        const k = `${e.binding.file}\0${e.binding.qualname}`;
        for (const r of e.routes ?? []) {
          if (r.role !== 'result' || !r.binding) continue;
          let set = m.get(k);
          if (!set) m.set(k, (set = new Set()));
          set.add(`${r.binding.file}\0${r.binding.qualname}`);
        }
      }
  routedCache.set(project, m);
  return m;
}

function reportNoneOpen(o: NoneOpen, a: PythonAnalysis, c: PyCtx): void {
  const fn = a.functionAt(o.node);
  const side = verifierSide(c.project);
  if (side && !(fn && side.has(`${a.path}\0${fn.qualname}`))) return;
  const swallow = fn ? a.decoratorSwallow(fn) : undefined;
  const outcome =
    o.kind === 'blank'
      ? `\`${o.opener}(None)\` opens the library's blank default document instead of failing: the missing output is graded as an empty document`
      : swallow?.verdict
        ? `the exception from \`${o.opener}(None)\` is turned into \`${swallow.verdict}\` by the decorator \`${swallow.decorator ?? ''}\``
        : `\`${o.opener}(None)\` raises and the exception escapes the verifier: the run ends in an error instead of a verdict`;
  // a parameter opened as is (`open(path1)`, path1 the routed getter's value): a control case passes None there
  const call = a.call(o.node);
  const arg = call?.args[0] ? a.src(call.args[0]).trim() : undefined;
  const param = fn && o.kind === 'raises' && arg && /^[A-Za-z_]\w*$/.test(arg) && fn.params.includes(arg) ? arg : undefined;
  c.report({
    messageId: 'noneOpen',
    data: { expr: a.src(o.node), source: o.source, outcome },
    at: o.node,
    group: `none:${o.group}`,
    ...(param ? { control: { oracle: 'unguarded-state-read', file: a.path, line: a.line(o.node), qualname: fn!.qualname, noneParam: param } } : {}),
  });
}

function reportNoneUse(u: NoneUse, a: PythonAnalysis, c: PyCtx): void {
  const fn = a.functionAt(u.node);
  const side = verifierSide(c.project);
  if (side && !(fn && side.has(`${a.path}\0${fn.qualname}`))) return;
  const swallow = fn ? a.decoratorSwallow(fn) : undefined;
  const outcome = u.passes
    ? `it raises ${u.raises}, which \`${u.passes.handler}\` (line ${u.passes.line}) turns into \`${u.passes.verdict}\`: ${u.failed ? 'the check passes with nothing read' : 'the missing state passes'}`
    : swallow?.verdict
      ? `it raises ${u.raises}, which the decorator \`${swallow.decorator ?? ''}\` turns into \`${swallow.verdict}\`: the agent is scored as failing for a crash of the verifier`
      : `it raises ${u.raises} and the exception escapes the verifier: the run ends in an error instead of a verdict`;
  const when = u.failed ? 'the read itself fails (the None comes from an exception handler of the function that read the state)' : 'the state is missing (the app did not answer, the file or record is not there)';
  c.report({ messageId: 'noneUse', data: { expr: u.expr, source: u.source, when, outcome }, at: u.node, group: `none:${u.group}` });
}
