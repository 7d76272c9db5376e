/**
 * Flags: a name whose every binding, all in its own function (or the module body), is a plain
 * `name = <value>`, one of them at least a literal (`found = False` … `found = True`; `has_crypto =
 * True` at the end of a `try` body and `has_crypto = False` in its handler; `result = None` …
 * `result = versions[v]`). Where paths that gave the flag different values join, the join records
 * facts (`./facts.ts`): per path, the flag's values (and their truth) and the state the path brought.
 * A later test of the flag (`if has_crypto:`, `if not found:`, `if mode == "fast":`, `if result is not
 * None:`) keeps only the definitions of the paths whose values agree with the outcome, so a name bound
 * where the flag was set is bound where the flag is tested. A binding of the flag ends its facts.
 *
 * A literal (boolean, None, integer, string) is immutable: a test's outcome follows from it alone, at
 * every test. Any other value may pass or fail any test: its path agrees with every outcome.
 */
import { type PyNode, field, named, unparen } from '../tree.js';
import { type Scope, type ScopeTable, resolveScope } from '../scopes.js';
import { type AtomTest, type ValueSet, ANY, intersect, isEmptySet, literalKey, literalKeys } from '../conditions.js';
import { type Def, type FactInfo, type FlowState, type LiteralFlag, type State, type StateMap, keyOf, setKey } from './state.js';
import { factDef, factOf, mergeCases, restrictToCases } from './facts.js';

/** A value that is not a literal, in a flag's value sets. */
const ANY_VALUE = 'any';
const BOOL = ['T', 'F'];

/** The unit (function, lambda, class body or module) that runs a node. */
function unitOf(n: PyNode): PyNode {
  let p = n.parent;
  while (p && p.type !== 'function_definition' && p.type !== 'lambda' && p.type !== 'class_definition' && p.type !== 'module') p = p.parent;
  return p ?? n;
}

/** A flag's value as a key: the literal's (`k:True`, `i:0`, `s:fast`), `any` for another value. */
function valueKey(v: PyNode, text: string): string {
  return literalKey(v, text) ?? ANY_VALUE;
}

/** What a binding identifier is assigned by `name = <value>` (one target, not chained): its value's
 *  key; undefined for any other binding. */
function assignedValue(id: PyNode, text: string): string | undefined {
  const a = id.parent;
  if (!a || a.type !== 'assignment' || field(a, 'left') !== id || a.parent?.type === 'assignment') return undefined;
  const v = field(a, 'right');
  return v && v.type !== 'assignment' ? valueKey(v, text) : undefined;
}

/** Nodes between a name and the condition it is tested in (`not found`, `found and ok`, `mode == "x"`). */
const CONDITION_PARTS = new Set(['not_operator', 'boolean_operator', 'comparison_operator', 'parenthesized_expression']);

/** Bindings of a name above which it is not a flag: a flag is set in a few places, and a name bound
 *  in thousands (a flat function reassigning `x` at every statement) carried facts through every join,
 *  each split by the one before (issue 30's py-flat-statements: 52,509 → 6.2 M flow steps). */
const MAX_FLAG_BINDINGS = 8;

/**
 * The flags of a module, by state key. `moduleOpen`: the module's namespace may be written by name
 * (`globals()[…] =`, a star import, `setattr(sys.modules[__name__], …)`), so no module name is a flag.
 */
export function literalFlags(table: ScopeTable, text: string, moduleOpen: boolean): Map<string, LiteralFlag> {
  const out = new Map<string, LiteralFlag>();
  const units = table.scopes.filter((sc) => sc.kind === 'function' || (sc.kind === 'module' && !moduleOpen));
  // names a unit binds as often as a flag is: only their reads are looked at below
  const candidates = new Set<string>();
  for (const sc of units) for (const [name, bs] of sc.bindings) if (bs.length >= 2 && bs.length <= MAX_FLAG_BINDINGS) candidates.add(name);
  if (!candidates.size) return out;
  // only a name some condition tests is followed: the facts cost every join of its unit
  const tested = new Set<string>();
  for (const r of table.reads) {
    if (!candidates.has(r.name)) continue;
    let c = r.node;
    while (c.parent && CONDITION_PARTS.has(c.parent.type)) c = c.parent;
    if (c.field !== 'condition') continue;
    const sc = resolveScope(r.scope, r.name);
    if (sc) tested.add(keyOf(sc, r.name));
  }
  for (const sc of units) {
    for (const [name, bs] of sc.bindings) {
      if (bs.length < 2 || bs.length > MAX_FLAG_BINDINGS || !tested.has(keyOf(sc, name))) continue;
      const domain = new Set<string>();
      let ok = true;
      for (const b of bs) {
        const v = b.kind === 'assign' && unitOf(b.node) === sc.node ? assignedValue(b.node, text) : undefined;
        if (v === undefined) { ok = false; break; }
        domain.add(v);
      }
      const literals = [...domain].filter((v) => v !== ANY_VALUE);
      if (!ok || domain.size < 2 || !literals.length) continue;
      // a module's name written as an attribute (`import __main__; __main__.flag = True`, the module
      // importing itself, `setattr(m, "flag", …)`): not only its bindings set it
      if (sc.kind === 'module' && writtenAsAttribute(text, name)) continue;
      const key = keyOf(sc, name);
      const atom = `flag:${key}`;
      const truthAtom = `truthy(${atom})`;
      out.set(key, { atom, truthAtom, key, factKeys: [`#${atom}`, `#${truthAtom}`], scope: sc, name, domain: domain.has(ANY_VALUE) ? undefined : literals, literals });
    }
  }
  return out;
}

/** Ways code reaches a module object's names without naming them in a binding. */
const MODULE_WRITES = /\b(setattr|__setattr__|__dict__|vars|exec|globals|import_module|__import__)\b|\bsys\s*\.\s*modules\b/u;

/** The text may write the module's name `name` other than by binding it: it names an attribute of
 *  that name (`__main__.flag = True`, `m.flag: bool = …`, `for m.flag in …`), or reaches a module's
 *  namespace by any of `MODULE_WRITES` (`setattr(m, "fl" "ag", …)`, `m.__dict__[…]`, `exec(…)`). */
function writtenAsAttribute(text: string, name: string): boolean {
  return MODULE_WRITES.test(text) || new RegExp(`\\.\\s*${name}(?![\\p{L}\\p{N}_])`, 'u').test(text);
}

/** Truth of a literal key (`k:None`, `i:0`, `s:` are false). */
function truthy(k: string): boolean {
  return !(k === 'k:False' || k === 'k:None' || k === 'i:0' || k === 's:');
}

/** True and 1 are equal in Python, as False and 0: values of both kinds are not told apart by key. */
function mixesBoolAndInt(keys: Iterable<string>): boolean {
  let b = false;
  let i = false;
  for (const k of keys) {
    if (k === 'k:True' || k === 'k:False') b = true;
    else if (k.startsWith('i:')) i = true;
  }
  return b && i;
}

/**
 * The condition as a test of a literal flag: the flag itself (its truth), or the flag compared with
 * literals (`==`, `!=`, `in`, `not in`, and `is` / `is not` with None, True or False).
 */
export function flagTest(n0: PyNode, text: string, table: ScopeTable, flags: ReadonlyMap<string, LiteralFlag>): AtomTest | undefined {
  const n = unparen(n0);
  const flagOf = (x: PyNode): LiteralFlag | undefined => {
    const u = unparen(x);
    const r = u.type === 'identifier' ? table.readByNode.get(u) : undefined;
    if (!r) return undefined;
    // the read must resolve to the flag's scope: its own function, or the module from a function that binds nothing of that name
    for (let s: Scope | null = r.scope; s; s = s.parent) {
      const f = flags.get(keyOf(s, r.name));
      if (f) return f;
      if (s.bindings.has(r.name) || s.globals.has(r.name)) return undefined;
    }
    return undefined;
  };
  const mk = (f: LiteralFlag, values: string[], positive: boolean): AtomTest => ({ atom: f.atom, values, positive, domain: f.domain, platform: false });
  if (n.type === 'identifier') {
    const f = flagOf(n);
    return f && { atom: f.truthAtom, values: ['T'], positive: true, domain: BOOL, platform: false };
  }
  if (n.type !== 'comparison_operator') return undefined;
  const kids = named(n);
  const op = n.children.filter((c) => !c.named).map((c) => c.type).join(' ');
  if (kids.length !== 2) return undefined;
  let f = flagOf(kids[0]!);
  let other = kids[1]!;
  if (!f && op !== 'in' && op !== 'not in') { f = flagOf(kids[1]!); other = kids[0]!; }
  if (!f) return undefined;
  // `in` a string is a substring test: only a tuple, list or set display is a set of values
  const container = op === 'in' || op === 'not in';
  if (container && !['tuple', 'list', 'set'].includes(unparen(other).type)) return undefined;
  const lits = container ? literalKeys(other, text) : [literalKey(other, text)].filter((k): k is string => k !== undefined);
  if (!lits?.length || mixesBoolAndInt([...f.literals, ...lits])) return undefined;
  if ((op === 'is' || op === 'is not') && !lits.every((k) => k.startsWith('k:'))) return undefined;
  switch (op) {
    case '==': case 'is': case 'in': return mk(f, lits, true);
    case '!=': case 'is not': case 'not in': return mk(f, lits, false);
  }
  return undefined;
}

/** Values of a flag's definitions: literal keys, `any`, `u` for unbound; undefined for another definition. */
function valuesOf(cx: FlowState, defs: ReadonlySet<Def>, out = new Set<string>(), depth = 0): Set<string> | undefined {
  for (const d of defs) {
    if (d.kind === 'unbound') out.add('u');
    else if (d.kind === 'assign' && d.value) out.add(valueKey(d.value, cx.text));
    else if (d.kind === 'narrow' && d.base?.length && depth < 8) {
      if (!valuesOf(cx, new Set(d.base), out, depth + 1)) return undefined;
    } else return undefined;
  }
  return out;
}

/** Loops around a join above which it records no flag fact. */
const MAX_LOOP_DEPTH = 1;

/** The flags of each scope, per flag table (a join reads only those of the scopes its unit runs). */
const flagsByScope = new WeakMap<ReadonlyMap<string, LiteralFlag>, Map<Scope, LiteralFlag[]>>();

/** Cases of one fact above which no fact is recorded (a join of many paths each split by earlier facts). */
const MAX_CASES = 32;

/** What a path with these flag values allows of the flag's value, and of its truth (unbound: nothing). */
function valueDesc(vals: Set<string>): ValueSet {
  return vals.has(ANY_VALUE) ? ANY : { in: new Set([...vals].filter((v) => v !== 'u')) };
}
function truthDesc(vals: Set<string>): ValueSet {
  const out = new Set<string>();
  for (const v of vals) {
    if (v === ANY_VALUE) { out.add('T'); out.add('F'); } else if (v !== 'u') out.add(truthy(v) ? 'T' : 'F');
  }
  return { in: out };
}
const descKey = (d: ValueSet) => ('in' in d ? `in:${[...d.in].sort().join('|')}` : `notIn:${[...d.notIn].sort().join('|')}`);

/** Record, where the paths `outs` join at statement `n`, what each path's values of each flag bring
 *  (`joined` is their join). */
export function recordFlagFacts(cx: FlowState, n: PyNode, outs: readonly State[], joined: State, loopExit = false): State {
  const flags = cx.env.flags;
  // inside a loop inside a loop no fact is recorded, nor at the exit of a loop inside a loop: a fact that
  // changes on a pass makes the loops around it run again instead of replaying a kept run (`loopRun`),
  // and each level doubled the work (2^depth); a loop inside one took a pass more per run of it
  if (!joined || !flags?.size || cx.loops.length > (loopExit ? 0 : MAX_LOOP_DEPTH)) return joined;
  const live = outs.filter((o): o is StateMap => !!o);
  if (live.length < 2) return joined;
  let result: State = joined;
  let byScope = flagsByScope.get(flags);
  if (!byScope) {
    flagsByScope.set(flags, (byScope = new Map()));
    for (const f of flags.values()) byScope.set(f.scope, [...(byScope.get(f.scope) ?? []), f]);
  }
  for (const sc of cx.active) for (const flag of byScope.get(sc) ?? []) {
    const key = flag.key;
    // the paths share the flag's definitions and both facts (a join the flag did not take part in):
    // their values agree, so neither atom has anything to record
    if (sameOnAll(live, key, flag.factKeys)) continue;
    const vals: Set<string>[] = [];
    for (const o of live) {
      const v = valuesOf(cx, cx.get(o, key, flag.name));
      if (!v) break;
      vals.push(v);
    }
    if (vals.length !== live.length) continue;
    result = recordAtom(cx, n, flag.atom, flag.factKeys[0], live, vals.map(valueDesc), result);
    result = recordAtom(cx, n, flag.truthAtom, flag.factKeys[1], live, vals.map(truthDesc), result);
  }
  return result;
}

/** Every path holds the same definitions of `key` and the same facts at `factKeys` (the same sets:
 *  states never change a set in place, so a key no path rebound shares it). */
function sameOnAll(live: readonly StateMap[], key: string, factKeys: readonly string[]): boolean {
  const first = live[0]!;
  for (let i = 1; i < live.length; i++) {
    const o = live[i]!;
    if (o.get(key) !== first.get(key)) return false;
    for (const k of factKeys) if (o.get(k) !== first.get(k)) return false;
  }
  return true;
}

/** One atom's fact at the join (`factKey`: its state key): each path's allowed values (split by a fact the
 *  path already holds). */
function recordAtom(cx: FlowState, n: PyNode, atom: string, factKey: string, live: StateMap[], descs: ValueSet[], result: State): State {
  // the paths agree, and hold no fact of the atom (or all the same one, which their join keeps): nothing to record
  const held = live[0]!.get(factKey);
  const first = descKey(descs[0]!);
  if (descs.every((d) => descKey(d) === first) && live.every((o) => o.get(factKey) === held)) return result;
  const cases: Array<FactInfo['cases'][number] & { branch: string }> = [];
  live.forEach((o, i) => {
    const desc = descs[i]!;
    const earlier = factOf(o, atom);
    if (earlier && earlier.cases.length * live.length <= MAX_CASES) {
      earlier.cases.forEach((c, j) => {
        // the paths through that earlier case alone (its values need not be apart from the others')
        const d = intersect(desc, c.desc);
        const end = isEmptySet(d) ? null : restrictToCases(cx, o, earlier, (x) => x === c);
        if (end) cases.push({ desc: d, end, branch: `${i}:${j}:${descKey(d)}` });
      });
    } else if (!isEmptySet(desc)) cases.push({ desc, end: o, branch: `${i}:${descKey(desc)}` });
  });
  if (!cases.length || cases.length > MAX_CASES) return result;
  const d = factDef(cx, n, atom);
  mergeCases(cx, d, cases);
  return setKey(result, factKey, new Set([d]));
}
