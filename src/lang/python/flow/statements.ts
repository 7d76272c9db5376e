/**
 * Statements: the state after each statement kind, with the exits it takes (return, raise, break,
 * continue) handed to the enclosing loop, try or function; loops run to a fixpoint.
 */
import { type PyNode, field, fields, named, unparen, firstNamed } from '../tree.js';
import { withItemValues } from '../scopes.js';
import { type Def, type FlowState, type State, type StateMap, diffStates, equalStates, keyOf, setKey } from './state.js';
import { bindTarget, evalCond, evalDefaults, evalExpr } from './expressions.js';
import { dropAllAttrFacts, dropAttrFacts, recordFacts } from './facts.js';
import { recordFlagFacts } from './flags.js';
import { loopIndex, nonEmpty, trueOnEntry } from './loop-facts.js';
import { bindPattern, isIrrefutable } from './patterns.js';
import { cannotRaise } from './raises.js';
import { isCatchAll, nameErrorHandling } from './syntax.js';

export function execBlock(cx: FlowState, n: PyNode | undefined, s: State): State {
  if (!n) return s;
  for (const c of n.children) {
    if (!c.named || c.type === 'comment') continue;
    if (!s) return null;
    s = exec(cx, c, s);
  }
  return s;
}

function exec(cx: FlowState, n: PyNode, s: State): State {
  if (!s) return null;
  if (!cannotRaise(cx, n, s)) cx.observe(s);
  switch (n.type) {
    case 'expression_statement':
      return execExpressionStatement(cx, n, s);
    case 'return_statement': {
      for (const c of named(n)) s = evalExpr(cx, c, s);
      if (cx.finals.length) cx.finals[cx.finals.length - 1]!.push(s);
      return null;
    }
    case 'raise_statement': {
      for (const c of named(n)) s = evalExpr(cx, c, s);
      cx.observe(s);
      return null;
    }
    case 'break_statement':
      cx.loops[cx.loops.length - 1]?.breaks.push(s);
      return null;
    case 'continue_statement':
      cx.loops[cx.loops.length - 1]?.conts.push(s);
      return null;
    case 'pass_statement': case 'global_statement': case 'nonlocal_statement':
      return s;
    case 'assert_statement': {
      const kids = named(n);
      if (!kids[0]) return s;
      const [t, f] = evalCond(cx, kids[0], s);
      if (kids[1]) evalExpr(cx, kids[1], f);
      cx.observe(f);
      return t;
    }
    case 'delete_statement':
      return execDelete(cx, n, s);
    case 'import_statement': case 'import_from_statement': case 'future_import_statement':
      return execImport(cx, n, s);
    case 'decorated_definition': {
      for (const c of named(n)) if (c.type === 'decorator') s = evalExpr(cx, c, s);
      const d = field(n, 'definition');
      return d ? exec(cx, d, s) : s;
    }
    case 'function_definition': {
      if (cx.atModuleTop()) cx.setDefState(n, s);
      s = evalDefaults(cx, field(n, 'parameters'), s);
      const nm = field(n, 'name');
      return nm ? cx.bindId(s, nm, 'def', n) : s;
    }
    case 'class_definition':
      return execClass(cx, n, s);
    case 'if_statement':
      return execIf(cx, n, s);
    case 'while_statement':
      return cx.loopRun(n, s, (e) => execWhile(cx, n, e));
    case 'for_statement':
      return cx.loopRun(n, s, (e) => execFor(cx, n, e));
    case 'with_statement':
      return execWith(cx, n, s);
    case 'try_statement':
      return execTry(cx, n, s);
    case 'match_statement':
      return execMatch(cx, n, s);
    default: {
      for (const c of n.children) if (c.named) s = c.type === 'block' ? execBlock(cx, c, s) : evalExpr(cx, c, s);
      return s;
    }
  }
}

function execExpressionStatement(cx: FlowState, n: PyNode, s: State): State {
  for (const c of named(n)) {
    if (c.type === 'assignment' || c.type === 'augmented_assignment') s = assign(cx, c, s);
    else {
      s = evalExpr(cx, c, s);
      const e = unparen(c);
      const call = e.type === 'await' ? firstNamed(e) : e;
      if (call && call.type === 'call' && cx.env.isNoReturnCall(call, cx.curScope(n))) return null;
      const fnText = call?.type === 'call' ? cx.src(field(call, 'function') ?? call) : '';
      if (fnText === 'setattr' || fnText === 'delattr') {
        const obj = named(field(call!, 'arguments') ?? call!)[0];
        if (obj) s = dropAllAttrFacts(s, cx.src(obj));
      }
    }
  }
  return s;
}

function assign(cx: FlowState, n: PyNode, s: State): State {
  const left = field(n, 'left');
  const right = field(n, 'right');
  const type = field(n, 'type');
  if (n.type === 'augmented_assignment') {
    if (right) s = evalExpr(cx, right, s);
    if (left) {
      if (left.type === 'identifier') {
        cx.recordRead(left, s);
        s = cx.bindId(s, left, 'augassign', n, []);
      } else s = dropAttrFacts(cx, evalExpr(cx, left, s), left);
    }
    return s;
  }
  // chained `a = b = value`: the innermost right is the value
  const targets: PyNode[] = [];
  let cur: PyNode | undefined = n;
  let value: PyNode | undefined;
  while (cur && cur.type === 'assignment') {
    const l = field(cur, 'left');
    const r = field(cur, 'right');
    if (l && !(field(cur, 'type') && !r)) targets.push(l);
    if (!r) { value = undefined; break; }
    if (r.type !== 'assignment') { value = r; break; }
    cur = r;
  }
  if (value) s = evalExpr(cx, value, s);
  if (!right && type && left && left.type !== 'identifier') s = evalExpr(cx, left, s);
  for (const t of targets) s = dropAttrFacts(cx, bindTarget(cx, s, t, type ? 'annassign' : 'assign', value, []), t);
  return s;
}

function execDelete(cx: FlowState, n: PyNode, s: State): State {
  const del = (x: PyNode) => {
    if (x.type === 'identifier') {
      cx.recordRead(x, s);
      s = cx.bindId(s, x, 'del');
    }
    else if (x.type === 'expression_list' || x.type === 'tuple' || x.type === 'list' || x.type === 'parenthesized_expression') named(x).forEach(del);
    else s = dropAttrFacts(cx, evalExpr(cx, x, s), x);
  };
  named(n).forEach(del);
  return s;
}

function execImport(cx: FlowState, n: PyNode, s: State): State {
  for (const c of fields(n, 'name')) {
    if (c.type === 'aliased_import') {
      const a = field(c, 'alias');
      if (a) s = cx.bindId(s, a, 'import', n);
    } else {
      const ids = named(c);
      const id = n.type === 'import_statement' ? ids[0] : ids[ids.length - 1];
      if (id) s = cx.bindId(s, id, 'import', n);
    }
  }
  return s;
}

function execClass(cx: FlowState, n: PyNode, entry: StateMap): State {
  if (cx.atModuleTop()) cx.setDefState(n, entry);
  let s: State = entry;
  const sc = field(n, 'superclasses');
  if (sc) s = evalExpr(cx, sc, s);
  const cls = cx.table.byNode.get(n);
  if (cls) cx.active.add(cls);
  const out = execBlock(cx, field(n, 'body'), s);
  if (cls) cx.active.delete(cls);
  if (!out || !s) return null;
  // class-body locals do not outlive the body; keep the enclosing state's keys
  let s2: State = s;
  const outer: Array<[string, ReadonlySet<Def>]> = [];
  diffStates(s, out, (k, _, v) => { if (v && (!cls || !k.startsWith(`${cls.id}:`))) outer.push([k, v]); });
  for (const [k, v] of outer) s2 = setKey(s2, k, v);
  const nm = field(n, 'name');
  return nm ? cx.bindId(s2, nm, 'class', n) : s2;
}

function execIf(cx: FlowState, n: PyNode, s: State): State {
  const cond = field(n, 'condition');
  const conds: Array<PyNode | undefined> = [cond];
  let [t, f] = cond ? evalCond(cx, cond, s) : [s, s];
  const outs: State[] = [execBlock(cx, field(n, 'consequence'), t)];
  let hadElse = false;
  for (const alt of fields(n, 'alternative')) {
    if (alt.type === 'elif_clause') {
      const c2 = field(alt, 'condition');
      conds.push(c2);
      const [t2, f2] = c2 ? evalCond(cx, c2, f) : [f, f];
      outs.push(execBlock(cx, field(alt, 'consequence'), t2));
      f = f2;
    } else if (alt.type === 'else_clause') {
      hadElse = true;
      outs.push(execBlock(cx, field(alt, 'body'), f));
    }
  }
  if (!hadElse) outs.push(f);
  return recordFlagFacts(cx, n, outs, recordFacts(cx, n, conds, outs, cx.joinAll(outs)));
}

/** A loop whose condition holds on entry (`trueOnEntry`) runs its first pass apart: it leaves only
 *  after at least one pass, so names every pass binds are bound after it. */
function execWhile(cx: FlowState, n: PyNode, s: State): State {
  const cond = field(n, 'condition');
  const pass = (head: State) => {
    const [t, f] = cond ? evalCond(cx, cond, head) : [head, null];
    cx.loops.push({ breaks: [], conts: [] });
    const out = execBlock(cx, field(n, 'body'), t);
    const ctx = cx.loops.pop()!;
    return { exit: f, after: cx.joinAll([out].concat(ctx.conts)), breaks: ctx.breaks };
  };
  let entry: State = s;
  let firstBreaks: State[] = [];
  if (cond && trueOnEntry(cx, cond, s)) {
    const p1 = pass(s);
    entry = p1.after;
    firstBreaks = p1.breaks;
  }
  let head: State = entry;
  let exitF: State = null;
  let breaks: State[] = [];
  for (let i = 0; i < 6; i++) {
    // a fact a pass merged into (its cases are changed in place) needs one more pass that reads it
    const epoch = cx.factEpoch;
    const p = pass(head);
    exitF = p.exit;
    breaks = p.breaks;
    const next = cx.join(entry, p.after);
    if (equalStates(next, head) && cx.factEpoch === epoch) break;
    head = next;
  }
  const alt = field(n, 'alternative');
  const normal = alt ? execBlock(cx, field(alt, 'body'), exitF) : exitF;
  const exits = [normal].concat(firstBreaks, breaks);
  return recordFlagFacts(cx, n, exits, cx.joinAll(exits), true);
}

/** The first pass runs apart from the later ones: the index is known there, and a loop over a
 *  provably non-empty iterable leaves only after at least one pass. A body that tests "is this the
 *  last pass" (`if attempt < retries - 1: … else: raise`) gets one more pass for the last
 *  iteration: only that pass leaves the loop normally. */
function execFor(cx: FlowState, n: PyNode, s: State): State {
  const right = field(n, 'right');
  const left = field(n, 'left');
  const s1 = right ? evalExpr(cx, right, s) : s;
  const idx = left && right ? loopIndex(cx, left, right) : undefined;
  const lastAware = testsLastPass(cx, idx, field(n, 'body'));
  const pass = (head: State, first: boolean | undefined, last?: boolean) => {
    cx.observe(head);
    const sb = left ? bindTarget(cx, head, left, 'for', right, []) : head;
    const idxDef = idx ? cx.res.defAt.get(idx.id) : undefined;
    if (idxDef) cx.iterFacts.push({ def: idxDef, start: idx!.start, first, last: lastAware ? last : undefined, stop: idx!.stop });
    cx.loops.push({ breaks: [], conts: [] });
    const out = execBlock(cx, field(n, 'body'), sb);
    const ctx = cx.loops.pop()!;
    if (idxDef) cx.iterFacts.pop();
    return { after: cx.joinAll([out].concat(ctx.conts)), breaks: ctx.breaks };
  };
  const p1 = pass(s1, true, false);
  let breaks = p1.breaks;
  let head: State = p1.after;
  for (let i = 0; i < 6 && head; i++) {
    const epoch = cx.factEpoch;
    const p = pass(head, false, false);
    breaks = [...p1.breaks, ...p.breaks];
    const next = cx.join(p1.after, p.after);
    if (equalStates(next, head) && cx.factEpoch === epoch) break;
    head = next;
  }
  let done = head;
  if (lastAware) {
    const pl = pass(cx.join(s1, head), undefined, true);
    breaks = [...breaks, ...pl.breaks];
    done = pl.after;
  }
  const alt = field(n, 'alternative');
  const exitState = right && nonEmpty(cx, right, 0, new Set()) ? done : recordFlagFacts(cx, right ?? n, [s1, done], cx.join(s1, done), true);
  const normal = alt ? execBlock(cx, field(alt, 'body'), exitState) : exitState;
  const exits = [normal].concat(breaks);
  return recordFlagFacts(cx, n, exits, cx.joinAll(exits), true);
}

/** The loop body compares the range index with the last value (`i < N - 1`, `i + 1 == N`…). */
function testsLastPass(cx: FlowState, idx: { id: PyNode; stop?: string } | undefined, body: PyNode | undefined): boolean {
  const lastText = idx?.stop && /^\d+$/.test(idx.stop) ? `(${idx.stop}\\s*-\\s*1|${Number(idx.stop) - 1})\\b` : `${(idx?.stop ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*-\\s*1\\b`;
  return !!idx?.stop && !!body && new RegExp(`(^|\\W)${cx.src(idx.id)}\\s*(\\+\\s*1\\b|[<>=!]=?\\s*${lastText})`).test(cx.src(body));
}

function execWith(cx: FlowState, n: PyNode, s: State): State {
  let suppress = false;
  for (const c of named(n)) {
    if (c.type !== 'with_clause') continue;
    for (const v of withItemValues(c)) {
      let ctxExpr = v;
      if (v.type === 'as_pattern') {
        const kids = named(v);
        ctxExpr = kids[0] ?? v;
        s = evalExpr(cx, ctxExpr, s);
        const alias = field(v, 'alias');
        if (alias) s = bindTarget(cx, s, alias, 'with', ctxExpr, []);
      } else s = evalExpr(cx, v, s);
      if (ctxExpr.type === 'call') {
        const fn = field(ctxExpr, 'function');
        const t = fn ? cx.src(fn) : '';
        if (t === 'suppress' || t.endsWith('.suppress')) suppress = true;
      }
    }
  }
  if (!suppress) return execBlock(cx, field(n, 'body'), s);
  cx.excs.push([]);
  const out = execBlock(cx, field(n, 'body'), s);
  const caught = cx.excs.pop()!;
  return cx.joinAll([out].concat(caught));
}

function execTry(cx: FlowState, n: PyNode, s: State): State {
  const handlers = n.children.filter((c) => c.type === 'except_clause' || c.type === 'except_group_clause');
  const elseC = n.children.find((c) => c.type === 'else_clause');
  const fin = n.children.find((c) => c.type === 'finally_clause');
  const catchAll = handlers.some((h) => isCatchAll(h, cx.text));
  cx.excs.push([]);
  if (fin) cx.finals.push([]);
  cx.enterTryBody(nameErrorHandling(n, cx.text));
  const body = execBlock(cx, field(n, 'body'), s);
  cx.leaveTryBody();
  const raised = cx.excs.pop()!;
  // the states that may raise, joined once: the handlers' entry, and what an enclosing `try` sees of
  // this one (their join in place of the list: the same definitions in the same order, since a join of
  // joins is the join of all). Handing on the list made each `try` around n nested ones join the states
  // of all of them, and a nested loop's passes multiplied them (issue 30: loops each holding a `try`).
  // (its place in the enclosing list is taken now, before the `else` block adds to it; the join is made
  // after that block, as before, so definitions are numbered in the same order)
  const outer = !catchAll ? cx.excs[cx.excs.length - 1] : undefined;
  const at = outer ? outer.push(null) - 1 : -1;
  const outs: State[] = [elseC ? execBlock(cx, field(elseC, 'body'), body) : body];
  const hEntry = cx.joinAll(raised);
  if (outer) outer[at] = hEntry;
  for (const h of handlers) outs.push(execHandler(cx, h, hEntry));
  const normal = recordFlagFacts(cx, n, outs, cx.joinAll(outs));
  if (!fin) return normal;
  const pending = cx.finals.pop()!;
  const fb = field(fin, 'body') ?? named(fin).find((c) => c.type === 'block');
  execBlock(cx, fb, cx.joinAll([normal, catchAll ? null : hEntry].concat(pending)));
  if (pending.length && cx.finals.length) { const outer = cx.finals[cx.finals.length - 1]!; for (const r of pending) outer.push(r); }
  return normal ? execBlock(cx, fb, normal) : null;
}

/** An `except` clause entered with the states that may raise in the try body; its alias is unbound after it. */
function execHandler(cx: FlowState, h: PyNode, hEntry: State): State {
  let hs = hEntry;
  let alias: PyNode | undefined;
  for (const c of named(h)) {
    if (c.type === 'block') continue;
    if (c.type === 'as_pattern') {
      const k = named(c)[0];
      if (k) hs = evalExpr(cx, k, hs);
      const a = field(c, 'alias');
      alias = a ? firstNamed(a) ?? a : undefined;
      if (alias) hs = cx.bindId(hs, alias, 'except', k);
    } else hs = evalExpr(cx, c, hs);
  }
  let out = execBlock(cx, named(h).find((c) => c.type === 'block'), hs);
  if (alias && alias.type === 'identifier' && out) {
    const sc = cx.table.bindingScope.get(alias);
    if (sc) { const key = keyOf(sc, cx.src(alias)); out = setKey(out, key, cx.unboundHere(alias, key, cx.src(alias))); }
  }
  return out;
}

function execMatch(cx: FlowState, n: PyNode, s: State): State {
  const subj = field(n, 'subject');
  if (subj) s = evalExpr(cx, subj, s);
  let rest: State = s;
  const outs: State[] = [];
  const body = n.children.find((c) => c.type === 'block');
  for (const cc of body ? named(body) : []) {
    if (cc.type !== 'case_clause') continue;
    let cs: State = rest;
    let irrefutable = false;
    let guard: PyNode | undefined;
    for (const k of named(cc)) {
      if (k.type === 'case_pattern') {
        cs = bindPattern(cx, k, cs);
        irrefutable ||= isIrrefutable(k);
      } else if (k.field === 'guard') guard = firstNamed(k);
      else if (k.type === 'block') {
        let t = cs;
        if (guard) [t] = evalCond(cx, guard, cs);
        outs.push(execBlock(cx, k, t));
      }
    }
    if (irrefutable && !guard) { rest = null; break; }
  }
  outs.push(rest);
  return recordFlagFacts(cx, n, outs, cx.joinAll(outs));
}
