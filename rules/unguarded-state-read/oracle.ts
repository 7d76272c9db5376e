/**
 * Oracle `unguarded-state-read`: application state read on the verdict path with no handling of an
 * unavailable or malformed endpoint. The state source is doubled as unavailable and as non-JSON;
 * an exception escaping the function (instead of a failed verdict) is the defect.
 *
 * finding.control: { oracle: 'unguarded-state-read', ...common Python fields (see common.ts),
 *   source?: { self: string }   dotted `self` attribute path whose call returns the raw state
 *                               (e.g. 'manager._call'); default: the first `self.a.b(` call in the function
 *          | { port: number, path?: string }   a local HTTP endpoint (default: an http://localhost:PORT literal) }
 * A baseline with a healthy state comes first (a JSON object holding the keys the flagged statement
 * subscripts on the parsed state, `….json()["AT"]` → `{"AT": "state"}`, else `{}`); a baseline that
 * fails at or before the read is a non-result (`crash`). An exception of the same type with a healthy
 * state says nothing about the state read; only a different one (the state failure's own) counts.
 * When the flagged line reads state through another `self` call than the function's first one
 * (`assert self._call(...)[1]` then `json.loads(self.read_file(path))` on the flagged line), a second
 * set of cases doubles the flagged line's call as the state source and answers the earlier `self`
 * calls as on a healthy run, shaped by their call sites (`…[1]` → a truthy item 1); it counts only
 * when the first set reached no verdict at the flagged line.
 * confirmed: an exception escapes for an unavailable or non-JSON state · refuted: both give a verdict.
 */
import { readFileSync } from 'node:fs';
import type { Confirmation } from '../../src/core/types.js';
import type { CaseResult, Spec } from '../../src/confirm/harness.js';
import { callCase, defaultWitnesses, executedLine, firstNonResult, httpLibraries, outcomeOf, pythonTarget, shapedReturn, show, type Oracle, type OracleContext, type Plan, type Target, type Witness, outcomesOf } from '../../src/confirm/oracle-kit.js';
import { matches, returnsOf, type CallArgs, type MatchMethod } from './match-returns.js';
import { FLAG } from '../../src/suites/regex/python-re.js';
import { relative } from 'node:path';
import { earlierHttpCalls, FAILED_ANSWER, functionText, httpSelfAddress, stubTargets } from '../../src/confirm/stubs.js';

function selfWith(path: string, callable: Spec): Spec {
  const parts = path.split('.');
  let spec: Spec = callable;
  for (let i = parts.length - 1; i >= 1; i--) spec = { $double: 'object', attrs: { [parts[i]!]: spec } };
  return { $double: 'self', attrs: { [parts[0]!]: spec } };
}

const NON_JSON = '<html><body>502 Bad Gateway</body></html>';

/** A healthy state for the flagged statement: the keys it subscripts right after the read's call
 *  (`.json()["AT"]`, `json.loads(raw)["a"]["b"]`) hold a value, so a working read gets past them. */
function healthyState(statement: string): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const m of statement.matchAll(/\)((?:\s*\[\s*(['"])[^'"\n]+\2\s*\])+)/g)) {
    const keys = [...m[1]!.matchAll(/\[\s*(['"])([^'"\n]+)\1\s*\]/g)].map((k) => k[2]!);
    let at = state;
    keys.forEach((k, i) => {
      if (i === keys.length - 1) at[k] ??= 'state';
      else at = (at[k] = typeof at[k] === 'object' && at[k] ? at[k] : {}) as Record<string, unknown>;
    });
  }
  return state;
}

/** A witness label that says which class the stand-in raised in the case (the library its method's
 *  module uses, when the harness could tell), in place of the plan's candidates. */
function withRaised(label: string, r: CaseResult | undefined): string {
  const raised = (r?.calls as Array<{ raised?: string }> | undefined)?.find((c) => c && typeof c.raised === 'string')?.raised;
  return raised ? label.replace(/ raises (?:the connection error of [\w, ]+|[\w.]+) \(state unavailable\)/, ` raises ${raised} (state unavailable)`) : label;
}

/** What the stand-in for `self.<path>(…)` returns: a response whose body is `text` when the call site
 *  reads it with `.json()` (as the library's Response; its `json()` fails as the library's does),
 *  else the text itself. */
function stateReturn(code: string, path: string, text: string, library: string[]): Spec {
  const shaped = shapedReturn(code, path, text);
  if (shaped && typeof shaped === 'object' && '$double' in shaped && shaped.$double === 'response') return { $double: 'response', status: 200, text, library };
  return text;
}

/** `self.<path>` doubles combined into one `self` spec (each path's attributes nested as objects). */
function selfWithAll(doubles: Array<[string, Spec]>): Spec {
  const root: Record<string, Spec> = {};
  for (const [path, callable] of doubles) {
    const parts = path.split('.');
    let at = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = (at[parts[i]!] ??= { $double: 'object', attrs: {} }) as { attrs: Record<string, Spec> };
      at = next.attrs;
    }
    at[parts[parts.length - 1]!] = callable;
  }
  return { $double: 'self', attrs: root };
}

const SELF_CALL = /\bself\.((?:\w+\.)*\w+)\s*\(/g;

/** The `self` call on the flagged lines (the state read there) and the distinct `self` calls before
 *  it in the function, when the flagged line's call is not the function's first one. */
function flaggedSelfCall(code: string, startLine: number, first: number, last: number): { read: string; before: string[] } | undefined {
  const lines = code.split('\n');
  const before: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = startLine + i;
    if (line > last) break;
    for (const m of lines[i]!.matchAll(SELF_CALL)) {
      if (line >= first) {
        const read = m[1]!;
        const earlier = before.filter((p) => p !== read);
        return earlier.length && before[0] !== read ? { read, before: [...new Set(earlier)] } : undefined;
      }
      before.push(m[1]!);
    }
  }
  return undefined;
}

/** A file the healthy baseline opens where the getter's value goes (a path in the case's folder). */
const STATE_FILE = 'vaudit-state.json';

/** `open(path1)` on a parameter the routed getter fills with None when it fails (control.noneParam):
 *  a baseline with a healthy value (a file holding `{}`) must get past the open; then the parameter is
 *  None. confirmed: an exception raised at the open escapes · refuted: the function returns a verdict. */
function noneValuePlan(t: Target, ctx: OracleContext, param: string): Plan | Confirmation {
  const i = t.params.indexOf(param);
  if (i < 0) return { status: 'unsupported', detail: `\`${param}\` is not a parameter of the function holding line ${t.line}; no control case can pass it None` };
  const w0 = defaultWitnesses(t, ctx)[0] ?? { args: [] };
  const withValue = (v: Spec): Spec[] => {
    const args = [...w0.args];
    while (args.length <= i) args.push(null);
    args[i] = v;
    return args;
  };
  const files = { ...(w0.files ?? {}), [STATE_FILE]: '{}' };
  const base = callCase(t, 'n0', { ...w0, args: withValue(STATE_FILE), files }, ctx);
  const none = callCase(t, 'n1', { ...w0, args: withValue(null), files }, ctx);
  const label = `${param}=None (what the getter returns when it fails)`;
  return {
    cases: [base, none],
    judge(results): Confirmation {
      const r0 = results.get(base.id);
      const nr0 = firstNonResult([r0]);
      if (nr0) return nr0;
      const beforeOrAt = (r: CaseResult) => r.status === 'raised' && r.exception?.file === t.file && (r.exception?.line ?? 0) <= t.line;
      if (!executedLine(r0, t.file, t.line)) return { status: 'unreached', detail: `no witness reached the open at line ${t.line}: with ${param}=${show(STATE_FILE)} (a file holding {}) the witness ${outcomeOf(r0)}`, runId: r0!.runId };
      if (beforeOrAt(r0!) || (r0!.status === 'raised' && r0!.exception?.file !== t.file))
        return { status: 'crash', detail: `the healthy baseline (${param}=${show(STATE_FILE)}, a file holding {}) failed (${outcomeOf(r0)}), so None cannot be told apart from the witness's own failure`, runId: r0!.runId };
      const r1 = results.get(none.id);
      const nr1 = firstNonResult([r1]);
      if (nr1) return nr1;
      if (!executedLine(r1, t.file, t.line)) return { status: 'unreached', detail: `with ${label} the witness ${outcomeOf(r1)} before the open at line ${t.line}`, runId: r1!.runId };
      const expected = 'a failed verdict (False), not an exception';
      if (r1!.status === 'raised' && r1!.exception?.file === t.file && r1!.exception?.line === t.line)
        return { status: 'confirmed', witness: label, expected, observed: `${r1!.exception?.type}: ${r1!.exception?.message} raised at line ${t.line} escaped the verifier`, runId: r1!.runId };
      if (r1!.status === 'returned') return { status: 'refuted', witness: label, expected, observed: `returned ${show(r1!.value)}`, runId: r1!.runId };
      return { status: 'unreached', detail: `with ${label} the witness ${outcomeOf(r1)}, not at the open at line ${t.line}`, runId: r1!.runId };
    },
  };
}

/** A string `pattern` matches, built from it (literals kept, an escape class or wildcard → one
 *  character it takes, a character class → its first member, each quantified atom once or `{n}` times);
 *  undefined when the pattern has alternatives or the result does not match (checked with the pattern
 *  compiled as is; the case's baseline checks it again in Python). */
export function matchingSample(pattern: string): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch {
    return undefined;
  }
  if (pattern.includes('|')) return undefined;
  let out = '';
  let last = '';
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const e = pattern[i + 1] ?? '';
      last = ({ d: '1', w: 'x', s: ' ', D: 'x', W: '-', S: 'x' } as Record<string, string>)[e] ?? (/[A-Za-z0-9]/.test(e) ? '' : e);
      out += last;
      i += 2;
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return undefined;
      const body = pattern.slice(i + 1, end);
      last = body.startsWith('^') ? (/[x]/.test(body) ? 'y' : 'x') : body.startsWith('\\') ? ({ d: '1', w: 'x', s: ' ' } as Record<string, string>)[body[1]!] ?? body[1]! : body[0]!;
      out += last;
      i = end + 1;
    } else if (ch === '{') {
      const q = /^\{(\d+)(?:,\d*)?\}\??/.exec(pattern.slice(i));
      if (!q) return undefined;
      out += last.repeat(Math.max(0, Number(q[1]) - 1));
      if (Number(q[1]) === 0) out = out.slice(0, out.length - last.length);
      i += q[0].length;
    } else if (ch === '(') {
      i += pattern.startsWith('(?:', i) ? 3 : pattern.startsWith('(?', i) ? -Infinity : 1;
      if (!Number.isFinite(i)) return undefined;
      last = '';
    } else if ('*+?)^$'.includes(ch)) {
      i += 1;
    } else {
      last = ch === '.' ? 'x' : ch;
      out += last;
      i += 1;
    }
  }
  return re.test(out) ? out : undefined;
}

/** A match read (`re.search(P, s).group(1)` with no test of the match): the subject `s` the flagged
 *  statement searches, a parameter or the value of a module-level function the function calls
 *  (`s = get_url(env, cfg)`), is given a string `P` matches (the baseline: the read must pass) and one
 *  it does not (the defect: None's AttributeError escapes at the read). The getter is doubled in the
 *  case's own process (`globals`). confirmed: the no-match subject's exception escapes at the flagged
 *  read · refuted: the flagged read ran on it and the function returned · no verdict when the baseline
 *  fails at or before the read. */
function matchPlan(t: Target, ctx: OracleContext, code: string): Plan | Confirmation {
  const last = Math.max(t.line, ctx.finding.range.end.line);
  const flagged = code.split('\n').slice(t.line - t.slice.info.startLine, last - t.slice.info.startLine + 1).join('\n');
  const before = code.split('\n').slice(0, t.line - t.slice.info.startLine).join('\n');
  const SEARCH = /\bre\.(?:search|match|fullmatch)\(\s*(r?)(['"])((?:\\.|(?!\2).)*)\2\s*,\s*([A-Za-z_]\w*)\s*[,)]/;
  // the search on the flagged statement, else the one that bound the match object it reads (`m.group(1)`)
  const held = /\b([A-Za-z_]\w*)\.(?:group|groups|groupdict|start|end|span)\(/.exec(flagged)?.[1];
  const bound = held ? [...before.matchAll(new RegExp(String.raw`^[ \t]*${held}\s*=\s*(re\.(?:search|match|fullmatch)\(.*)$`, 'gm'))].pop()?.[1] : undefined;
  const m = SEARCH.exec(flagged) ?? (bound ? SEARCH.exec(bound) : null);
  if (!m) return { status: 'unsupported', detail: `vaudit runs a match read only when the flagged statement searches a literal pattern in a named value (\`re.search("…", name)\`); line ${t.line} does not` };
  const pattern = m[1] ? m[3]! : m[3]!.replace(/\\\\/g, '\\');
  const subject = m[4]!;
  const sample = matchingSample(pattern);
  // a read under a conditional or a short-circuit on its own statement (`… if url else None`, `url and …`)
  // is skipped for a falsy subject: the no-match value is then a truthy one, so the read runs on it
  const shortCircuit = /\bif\b[^\n]*\belse\b|\band\b|\bor\b/.test(flagged.replace(/(['"])(?:\\.|(?!\1).)*\1/g, '""'));
  const misses = shortCircuit ? ['vaudit: no match', ''] : ['', 'vaudit: no match'];
  const miss = misses.find((x) => {
    try {
      return !new RegExp(pattern).test(x);
    } catch {
      return false;
    }
  });
  if (sample === undefined || miss === undefined) return { status: 'unsupported', detail: `vaudit could not build a subject that the pattern ${show(pattern)} matches and one it does not` };
  const w0 = defaultWitnesses(t, ctx)[0] ?? { args: [] };
  const at = t.params.indexOf(subject);
  const assigned = [...before.matchAll(new RegExp(String.raw`^[ \t]*${subject}\s*=\s*([A-Za-z_]\w*)\s*\(`, 'gm'))].pop()?.[1];
  const getter = at < 0 && assigned && !['str', 'repr', 'open', 'input', 'format', 'getattr'].includes(assigned) ? assigned : undefined;
  if (at < 0 && !getter) return { status: 'unsupported', detail: `the subject \`${subject}\` of the match at line ${t.line} is neither a parameter nor the value of a module-level function the function calls, so no case can choose it` };
  // a getter's no-match value must be one it can return: its own fallback, its None, the literal part of a
  // value it builds, or state as it read it; a getter that returns only matched values (or values made by
  // a function vaudit does not follow) gets no case
  let getterMiss: string | null = miss;
  let missWhere = '';
  if (getter) {
    const g = getterValues(ctx, t, getter, pattern, m[0]!, shortCircuit, callArgsOf(before, subject, getter));
    if ('status' in g) return g;
    getterMiss = g.value;
    missWhere = g.where;
  }
  const withSubject = (v: string | null): Witness => {
    if (getter) return { ...w0, label: `${getter}(…) returns ${v === null ? 'None' : show(v)}` };
    const args = [...w0.args];
    while (args.length <= at) args.push(null);
    args[at] = v;
    return { ...w0, args, label: `${subject}=${show(v)}` };
  };
  const base = callCase(t, 'm0', withSubject(sample), ctx, getter ? { globals: { [getter]: { $double: 'callable', returns: sample } } } : {});
  const none = callCase(t, 'm1', withSubject(getter ? getterMiss : miss), ctx, getter ? { globals: { [getter]: { $double: 'callable', returns: getterMiss } } } : {});
  const label = getter
    ? `${getter}(…) returns ${getterMiss === null ? 'None' : show(getterMiss)}${missWhere}, ${getterMiss === null ? 'which no pattern can be searched in' : `which ${show(pattern)} does not match`}`
    : `${subject}=${show(miss)}, which ${show(pattern)} does not match`;
  const baseLabel = getter ? `${getter}(…) returning ${show(sample)}` : `${subject}=${show(sample)}`;
  const inRange = (f?: string | null, l?: number | null) => f === t.file && l != null && l >= t.line && l <= last;
  return {
    cases: [base, none],
    judge(results): Confirmation {
      const r0 = results.get(base.id);
      if (!r0) return { status: 'crash', detail: 'control case: no answer' };
      if (!executedLine(r0, t.file, t.line)) {
        const nr = firstNonResult([r0]);
        return nr ?? { status: 'unreached', detail: `no witness reached the match read at line ${t.line}: with ${baseLabel} the witness ${outcomeOf(r0)}`, runId: r0.runId };
      }
      // the baseline must get past the read; what it meets later (a refused download) says nothing about it
      const failedAtRead = r0.status === 'raised' && inRange(r0.exception?.file, r0.exception?.line);
      const eventAtRead = r0.events.some((e) => inRange(e.file, e.line));
      // past the read: a later line of the function ran, or it returned
      const past = r0.status === 'returned' || (r0.lines[t.file] ?? []).some((l) => l > last && l <= t.slice.info.endLine);
      if (failedAtRead || eventAtRead || !past) {
        const nr = firstNonResult([r0]);
        if (nr && !failedAtRead && !eventAtRead) return nr;
        return { status: 'crash', detail: `the healthy baseline (${baseLabel}, which the pattern matches) did not get past the read (${outcomeOf(r0)}), so no verdict`, runId: r0.runId };
      }
      const r1 = results.get(none.id);
      const nr1 = firstNonResult([r1]);
      if (nr1) return nr1;
      if (!executedLine(r1, t.file, t.line)) return { status: 'unreached', detail: `with ${label} the witness ${outcomeOf(r1)} before the read at line ${t.line}`, runId: r1!.runId };
      const expected = 'a failed verdict (False), not an exception';
      const atRead = r1!.status === 'raised' ? (inRange(r1!.exception?.file, r1!.exception?.line) ? r1!.exception!.line! : r1!.events.find((e) => e.type === r1!.exception?.type && inRange(e.file, e.line))?.line) : undefined;
      if (atRead !== undefined)
        return { status: 'confirmed', witness: `${label} (the baseline, ${baseLabel}, got past the read)`, expected, observed: `${r1!.exception?.type}: ${r1!.exception?.message} raised at line ${atRead} escaped the verifier`, runId: r1!.runId };
      // a read that ran on a value the pattern misses fails there (None has no `.group`, None cannot be
      // searched) even when the verifier handles it: refuted needs that failure seen at the read and the
      // function returning after it. A line that ran is not a read that ran (`… if url else None`).
      const handledAtRead = r1!.events.some((e) => inRange(e.file, e.line));
      if (r1!.status === 'returned' && handledAtRead) return { status: 'refuted', witness: label, expected, observed: `the read failed at line ${t.line} and the verifier handled it: returned ${show(r1!.value)}`, runId: r1!.runId };
      if (r1!.status === 'returned')
        return { status: 'unreached', detail: `with ${label} the witness returned ${show(r1!.value)} with no failure at line ${t.line}, so the read there never ran on that value (the line runs it only under a condition or short-circuit the value did not pass)`, runId: r1!.runId };
      return { status: 'unreached', detail: `with ${label} the witness ${outcomeOf(r1)}, not at the read at line ${t.line}`, runId: r1!.runId };
    },
  };
}

/** The value the getter's double returns when the pattern must miss: a value the real getter can return
 *  (`returnsOf`), in order a literal fallback the pattern does not match, None, the literal part of a value
 *  it builds from state (`"https://host" + text` with the text empty), state as read (`""`). No such value
 *  (every return matched, or made by a function vaudit does not follow) → no case. */
/** How the last `subject = getter(…)` in `before` passes its arguments (top-level commas, `name=` keywords). */
function callArgsOf(before: string, subject: string, getter: string): CallArgs | undefined {
  const at = [...before.matchAll(new RegExp(String.raw`^[ \t]*${subject}\s*=\s*${getter}\s*\(`, 'gm'))].pop();
  if (!at) return undefined;
  let depth = 1;
  let i = at.index + at[0].length;
  const start = i;
  for (; i < before.length && depth > 0; i++) {
    const ch = before[i]!;
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
  }
  if (depth > 0) return undefined;
  const parts: string[] = [];
  let cur = '';
  let d = 0;
  for (const ch of before.slice(start, i - 1)) {
    if ('([{'.includes(ch)) d++;
    else if (')]}'.includes(ch)) d--;
    if (ch === ',' && d === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  const args = parts.map((x) => x.trim()).filter(Boolean);
  const keywords = new Set(args.map((x) => /^(\w+)\s*=(?!=)/.exec(x)?.[1]).filter((x): x is string => !!x));
  return { positional: args.filter((x) => !/^\w+\s*=(?!=)/.test(x)).length, keywords, star: args.some((x) => x.startsWith('*')) };
}

function getterValues(ctx: OracleContext, t: Target, getter: string, pattern: string, searchSrc: string, truthy = false, call?: CallArgs): { value: string | null; where: string } | Confirmation {
  const py = ctx.project?.python;
  const r = py?.resolveFunction(t.file, getter);
  const b = r && py?.analysis(r.file);
  if (!r || !b)
    return { status: 'unsupported', detail: `vaudit could not find the definition of \`${getter}\` in the project, so it cannot tell which values it returns; a case that makes it return a value the pattern ${show(pattern)} does not match could show a value it never gives` };
  const method = (/\bre\.(search|match|fullmatch)\(/.exec(searchSrc)?.[1] ?? 'search') as MatchMethod;
  const flags = /\bre\.(?:I|IGNORECASE)\b/.test(searchSrc) ? FLAG.i : 0;
  const test = { pattern, flags, method };
  const rets = returnsOf(b, r.fn, test, call);
  const at = (line: number) => ` (as it does at ${relative(ctx.root, r.file) || r.file}:${line})`;
  // state as read is a value the getter gives only when no other path routes some values elsewhere (a
  // normaliser, a return after a match test): then which texts reach that return is not known
  // (the fallback of `text or FALLBACK` takes only the empty text, so it routes no other value elsewhere)
  const orFallback = (x: (typeof rets)[number]) => rets.some((y) => y.kind === 'free' && y.truthy === true && y.line === x.line);
  const free = rets.every((x) => x.kind === 'free' || x.kind === 'literal' || x.kind === 'none' || x.kind === 'prefix' || orFallback(x)) ? rets.find((x) => x.kind === 'free') : undefined;
  // state that reaches the return only when not empty (`text or FALLBACK`) misses only as a truthy text
  const mustBeTruthy = truthy || (free?.kind === 'free' && free.truthy === true);
  const miss = (mustBeTruthy ? ['vaudit: no match'] : ['', 'vaudit: no match']).find((v) => matches(test, v) === false);
  // a read skipped for a falsy value (a conditional or short-circuit on its line) needs a truthy one
  const lit = rets.find((x) => x.kind === 'literal' && (!truthy || x.value !== ''));
  if (lit?.kind === 'literal') return { value: lit.value, where: at(lit.line) };
  if (truthy && free && miss) return { value: miss, where: at(free.line) };
  const none = rets.find((x) => x.kind === 'none');
  if (none && !truthy) return { value: null, where: at(none.line) };
  for (const x of rets) if (x.kind === 'prefix' && x.value !== '' && matches(test, x.value) === false) return { value: x.value, where: `${at(x.line)} with the text it appends empty` };
  if (truthy && (none || free))
    return { status: 'unsupported', detail: `the read at line ${t.line} runs only for a truthy value (a conditional or short-circuit on its line), and no truthy value \`${getter}\` can return is known to miss the pattern ${show(pattern)}; the finding stands as a static one` };
  if (free && miss !== undefined) return { value: miss, where: `${at(free.line)}${mustBeTruthy && !truthy ? ' when the text it reads is not empty' : ''}` };
  const why = rets.map((x) => (x.kind === 'matched' ? `line ${x.line} ${x.why}` : x.kind === 'unknown' ? `line ${x.line} returns ${x.what}, which vaudit does not follow` : x.kind === 'prefix' ? `line ${x.line} builds a value from ${show(x.value)}, which the pattern matches` : x.kind === 'free' ? `line ${x.line} returns state as read, on the paths the others leave` : `line ${x.line}`)).join('; ');
  return {
    status: 'unsupported',
    detail: `no value \`${getter}\` can return is known to miss the pattern ${show(pattern)} (${why}), so a case that made it return one would show an input the suite never gives; the finding stands as a static one`,
  };
}

const oracle: Oracle = {
  id: 'unguarded-state-read',
  async plan(ctx) {
    const t = await pythonTarget(ctx);
    if (!('slice' in t)) return t;
    if (typeof ctx.control.noneParam === 'string') return noneValuePlan(t, ctx, ctx.control.noneParam);
    if (ctx.control.element === true)
      return { status: 'unsupported', detail: `vaudit builds no case for an element read: the case would need the page or document the lookup at line ${t.line} searches, rebuilt without that element (the verifier parses it from a reply, a file or a live page vaudit does not stand in for); the finding stands as a static one` };
    if (ctx.control.match === true) return matchPlan(t, ctx, functionText(t.file, t.slice.info.startLine, t.slice.info.endLine));
    const code = functionText(t.file, t.slice.info.startLine, t.slice.info.endLine);
    const src = ctx.control.source as { self?: string; port?: number } | undefined;
    // An HTTP read whose address comes from `self` (`requests.get(BASE_URL(self.port))`): the
    // endpoint is a stub on a port allocated for the case, handed to the code through `self`.
    const httpSelf = src ? undefined : httpSelfAddress(code);
    const selfPath = src?.self ?? (src?.port || httpSelf ? undefined : /\bself\.((?:\w+\.)*\w+)\s*\(/.exec(code)?.[1]);
    // the address the function itself calls nearest before the read wins over a port the rule saw
    // anywhere in the module (another function's `http://localhost:8088`)
    const port = src?.self ? undefined : selfPath || httpSelf ? src?.port : (stubTargets(t, ctx.control).port ?? src?.port);
    if (!selfPath && !port && !httpSelf)
      return { status: 'unsupported', detail: 'vaudit found no state source to double in this function (no `self` method call, no http://localhost:PORT address, no address held in `self`); the finding stands as a static one' };
    // A stand-in fails as the library the state read goes through fails (the libraries the verifier's
    // module imports; one class that is each of them when there are several or none).
    const libs = httpLibraries(readFileSync(t.file, 'utf8'));
    const unavailable: Spec = { type: 'ConnectionError', message: 'state endpoint unavailable', library: libs };
    const unavailableName = libs.length === 1 ? { requests: 'requests.exceptions.ConnectionError', httpx: 'httpx.ConnectError', urllib: 'urllib.error.URLError', aiohttp: 'aiohttp.ClientConnectionError', socket: 'ConnectionRefusedError' }[libs[0]!] ?? 'ConnectionError' : `the connection error of ${libs.join(', ')}`;
    const w0 = defaultWitnesses(t, ctx)[0] ?? { args: [] };
    const last = Math.max(t.line, ctx.finding.range.end.line);
    const healthyBody = JSON.stringify(healthyState(code.split('\n').slice(t.line - t.slice.info.startLine, last - t.slice.info.startLine + 1).join('\n')));
    const variants: Array<{ label: string; w: Witness }> = httpSelf
      ? [
          { label: 'healthy state (baseline)', w: { ...w0, self: httpSelf.self, servers: [{ port: 0, status: 200, body: healthyBody, contentType: 'application/json' }] } },
          { label: `nothing listens on the state endpoint (self.${httpSelf.attr} names a closed port)`, w: { ...w0, self: httpSelf.self, servers: [{ port: 0, closed: true }] } },
          { label: `the state endpoint (self.${httpSelf.attr}) answers 502 with ${show(NON_JSON)}`, w: { ...w0, self: httpSelf.self, servers: [{ port: 0, status: 502, body: NON_JSON, contentType: 'text/html' }] } },
          { label: `the state endpoint (self.${httpSelf.attr}) answers 200 with ${show(NON_JSON)}`, w: { ...w0, self: httpSelf.self, servers: [{ port: 0, status: 200, body: NON_JSON, contentType: 'text/html' }] } },
        ]
      : selfPath
      ? [
          { label: 'healthy state (baseline)', w: { ...w0, self: selfWith(selfPath, { $double: 'callable', returns: stateReturn(code, selfPath, healthyBody, libs) }) } },
          { label: `self.${selfPath}(…) raises ${unavailableName} (state unavailable)`, w: { ...w0, self: selfWith(selfPath, { $double: 'callable', raises: unavailable }) } },
          { label: `self.${selfPath}(…) returns ${show(NON_JSON)}`, w: { ...w0, self: selfWith(selfPath, { $double: 'callable', returns: stateReturn(code, selfPath, NON_JSON, libs) }) } },
        ]
      : [
          { label: 'healthy state (baseline)', w: { ...w0, servers: [{ port: port!, status: 200, body: healthyBody, contentType: 'application/json' }] } },
          { label: `nothing listens on 127.0.0.1:${port} (state unavailable)`, w: { ...w0 } },
          { label: `127.0.0.1:${port} answers 502 with ${show(NON_JSON)}`, w: { ...w0, servers: [{ port: port!, status: 502, body: NON_JSON, contentType: 'text/html' }] } },
          { label: `127.0.0.1:${port} answers 200 with ${show(NON_JSON)}`, w: { ...w0, servers: [{ port: port!, status: 200, body: NON_JSON, contentType: 'text/html' }] } },
        ];
    const cases = variants.map((v, i) => callCase(t, `v${i}`, v.w, ctx));
    // The state read on the flagged line itself, with the earlier `self` calls answered as on a healthy run.
    const flagged = !src && !httpSelf && selfPath ? flaggedSelfCall(code, t.slice.info.startLine, t.line, last) : undefined;
    const healthy: Array<[string, Spec]> = (flagged?.before ?? []).map((p) => [p, { $double: 'callable', returns: shapedReturn(code, p, true) }]);
    const onFlagged: Array<{ label: string; w: Witness }> = flagged
      ? [
          { label: 'healthy state (baseline)', w: { ...w0, self: selfWithAll([...healthy, [flagged.read, { $double: 'callable', returns: stateReturn(code, flagged.read, healthyBody, libs) }]]) } },
          { label: `self.${flagged.read}(…) returns ${show(NON_JSON)}`, w: { ...w0, self: selfWithAll([...healthy, [flagged.read, { $double: 'callable', returns: stateReturn(code, flagged.read, NON_JSON, libs) }]]) } },
          { label: `self.${flagged.read}(…) raises ${unavailableName} (state unavailable)`, w: { ...w0, self: selfWithAll([...healthy, [flagged.read, { $double: 'callable', raises: unavailable }]]) } },
        ].map((v) => ({ ...v, label: `${v.label}; ${flagged.before.map((p) => `self.${p}(…)`).join(', ')} answered as on a healthy run (shaped by the call site)` }))
      : [];
    const flaggedCases = onFlagged.map((v, i) => callCase(t, `f${i}`, v.w, ctx));
    // The read of a retry's reply (`requests.get(…)` again after a failed status): the endpoint answers
    // the function's earlier calls with HTTP 500, then as in each variant.
    const earlier = httpSelf || port ? earlierHttpCalls(t) : 0;
    const onRetry: Array<{ label: string; w: Witness }> = earlier
      ? variants
          .filter((v) => v.w.servers?.length && !v.w.servers.some((x) => x.closed))
          .map((v) => ({
            label: `${v.label}, after HTTP 500 to the ${earlier} earlier call${earlier > 1 ? 's' : ''} (the retry path)`,
            w: { ...v.w, servers: v.w.servers!.map((x) => ({ ...x, before: Array.from({ length: earlier }, () => FAILED_ANSWER) })) },
          }))
      : [];
    const retryCases = onRetry.map((v, i) => callCase(t, `r${i}`, v.w, ctx));
    /** The line of the flagged statement where the escaping exception arose, if it did there. */
    const atFlagged = (r: CaseResult): number | undefined => {
      const inRange = (f?: string | null, l?: number | null) => f === t.file && l != null && l >= t.line && l <= last;
      if (inRange(r.exception?.file, r.exception?.line)) return r.exception!.line!;
      return r.events.find((e) => e.type === r.exception?.type && inRange(e.file, e.line))?.line;
    };
    /** The verdict of one set of cases (a healthy baseline first, then the failing states). */
    const judgeSet = (set: typeof cases, labels: typeof variants, results: ReadonlyMap<string, CaseResult>): Confirmation => {
      const expected = 'a failed verdict (False), not an exception';
      const base = results.get(set[0]!.id);
      const nr0 = firstNonResult([base]);
      if (nr0) return nr0;
      // A witness that fails with a healthy state is not a working input: what the failing states do
      // with it says nothing about the state read, so the case is a non-result, never a verdict.
      // (A baseline that got past the flagged statement and failed later still shows that the read
      // itself works with a healthy state; then only another exception, raised at the read, counts.)
      const pastRead = base!.status === 'raised' && base!.exception?.file === t.file && (base!.exception?.line ?? 0) > last;
      // a baseline that never got to the read: the witness stops earlier (where and why)
      if (base!.status === 'raised' && !pastRead && !executedLine(base, t.file, t.line))
        return { status: 'unreached', detail: `no witness reached the state read at line ${t.line}: with a healthy state the witness ${outcomeOf(base)}`, runId: base!.runId };
      if (base!.status === 'raised' && !pastRead)
        return { status: 'crash', detail: `the healthy baseline failed (${outcomeOf(base)}), so the failing states cannot be told apart from the witness's own failure`, runId: base!.runId };
      let elsewhere: string | undefined;
      for (let i = 1; i < set.length; i++) {
        const r = results.get(set[i]!.id);
        if (r?.status !== 'raised' || (pastRead && r.exception?.type === base!.exception?.type)) continue;
        // the exception must come from the flagged read, not from anywhere on the path
        const at = atFlagged(r);
        if (at === undefined) {
          elsewhere ??= `${r.exception?.type} escaped from ${r.exception?.file?.split('/').pop()}:${r.exception?.line}, not from the state read at line ${t.line}`;
          continue;
        }
        return { status: 'confirmed', witness: withRaised(labels[i]!.label, r), expected, observed: `${r.exception?.type}: ${r.exception?.message} raised at line ${at} escaped the verifier`, runId: r.runId };
      }
      const nr = firstNonResult(set.map((c) => results.get(c.id)));
      if (nr) return nr;
      if (elsewhere) return { status: 'unreached', detail: elsewhere, runId: base!.runId };
      if (pastRead)
        return { status: 'crash', detail: `the healthy baseline failed after the state read (${outcomeOf(base)}) and the failing states met no other failure at the read, so the witness gives no verdict`, runId: base!.runId };
      const r = results.get(set[1]!.id)!;
      if (!set.slice(1).some((c) => executedLine(results.get(c.id), t.file, t.line)))
        return { status: 'unreached', detail: `no witness reached the state read at line ${t.line} (${outcomesOf(set.slice(1).map((c) => results.get(c.id)))})`, runId: r.runId };
      return { status: 'refuted', witness: labels.slice(1).map((v, k) => withRaised(v.label, results.get(set[k + 1]!.id))).join('; '), expected, observed: set.slice(1).map((c) => `returned ${show(results.get(c.id)?.value)}`).join(' / '), runId: r.runId };
    };
    return {
      cases: [...cases, ...flaggedCases, ...retryCases],
      judge(results): Confirmation {
        const first = judgeSet(cases, variants, results);
        if (first.status === 'confirmed' || first.status === 'refuted') return first;
        if (retryCases.length) {
          const retried = judgeSet(retryCases, onRetry, results);
          if (retried.status === 'confirmed' || retried.status === 'refuted') return retried;
        }
        if (!flaggedCases.length) return first;
        // the first set reached no verdict at the flagged line: the state read there, earlier calls healthy
        const second = judgeSet(flaggedCases, onFlagged, results);
        if (second.status === 'confirmed' || second.status === 'refuted') return second;
        return { ...first, detail: `${first.detail}; with self.${flagged!.read}(…) as the state source: ${second.detail ?? second.status}` };
      },
    };
  },
};
export default oracle;
