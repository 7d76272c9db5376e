/**
 * Path correlation over pure atoms (platform, module constants, `hasattr`): an if-chain records, per
 * atom, the state at the end of each branch; a later test of the same atom keeps only the
 * definitions of the branches that agree with it.
 */
import { type PyNode, field, named, unparen } from '../tree.js';
import { type AtomTest, type ValueSet, ANY, caseOf, intersect, isEmptySet, hasattrAtom } from '../conditions.js';
import { type Def, type FactInfo, type FlowState, type State, type StateMap, deleteKey, diffStates, nameOfKey, setKey } from './state.js';

const SEQUENCE_TARGETS = ['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list'];

export function factOf(s: State, atom: string): FactInfo | undefined {
  const fs = s?.get(`#${atom}`);
  if (!fs || fs.size !== 1) return undefined;
  const f = fs.values().next().value!;
  return f.kind === 'fact' ? f.fact : undefined;
}

/** Keep, for a test of a pure atom, only the definitions that reach along branches of an earlier
 *  if-chain over the same atom that agree with the test's outcome (null: no branch agrees). */
export function restrictByFact(cx: FlowState, s: State, atom: string, want: ValueSet): State {
  if (!s) return s;
  const fact = factOf(s, atom);
  return fact ? restrictToCases(cx, s, fact, (c) => !isEmptySet(intersect(c.desc, want))) : s;
}

/** Keep only the definitions that reach along the cases of `fact` that `keep` selects (null: none). */
export function restrictToCases(cx: FlowState, s: StateMap, fact: FactInfo, keep: (c: FactInfo['cases'][number]) => boolean): State {
  const cons: FactInfo['cases'] = [];
  const incons: FactInfo['cases'] = [];
  for (const c of fact.cases) (keep(c) ? cons : incons).push(c);
  if (!incons.length) return s;
  if (!cons.length) return null;
  let out: State = s;
  for (const k of differingKeys(fact)) {
    const name = nameOfKey(k);
    const cur = cx.get(s, k, name);
    const consDefs = cons.map((c) => cx.get(c.end, k, name));
    const inconsDefs = incons.map((c) => cx.get(c.end, k, name));
    // a definition only inconsistent cases bring is dropped
    let drop: Set<Def> | undefined;
    for (const d of cur) {
      if (inconsDefs.some((ds) => ds.has(d)) && !consDefs.some((ds) => ds.has(d))) (drop ??= new Set()).add(d);
    }
    if (drop && drop.size < cur.size) out = setKey(out, k, new Set([...cur].filter((d) => !drop.has(d))));
  }
  return out;
}

/** The state keys (facts aside) whose definitions differ between the ends of a fact's cases, kept per
 *  fact while its cases' ends stay the ones they were computed from (mergeCases replaces or adds ends). */
const differing = new WeakMap<FactInfo, { ends: StateMap[]; keys: string[] }>();
function differingKeys(fact: FactInfo): readonly string[] {
  const hit = differing.get(fact);
  if (hit && hit.ends.length === fact.cases.length && hit.ends.every((e, i) => e === fact.cases[i]!.end)) return hit.keys;
  // a key every case's end holds the same definitions for (or none) keeps all of them: only the keys
  // the ends differ in are read
  const keys = new Set<string>();
  for (let i = 1; i < fact.cases.length; i++) diffStates(fact.cases[i - 1]!.end, fact.cases[i]!.end, (k) => { if (!k.startsWith('#')) keys.add(k); });
  const out = [...keys];
  differing.set(fact, { ends: fact.cases.map((c) => c.end), keys: out });
  return out;
}

/** Branches of an if-chain above which no fact is recorded (the real corpora's longest chain has far fewer). */
const MAX_FACT_BRANCHES = 1000;

/** Record, after an if-chain, what each completed branch established about the pure atoms it tests. */
export function recordFacts(cx: FlowState, n: PyNode, conds: Array<PyNode | undefined>, outs: State[], joined: State): State {
  const env = cx.env;
  // a chain of more branches records no fact: each branch narrows the values left to the next one and
  // is matched to an earlier pass's case, both per branch, so the work grows with the square of the
  // branches (issue 30: 131,600 `elif` over one name ran for minutes). Facts only sharpen the analysis.
  if (!joined || !env.atomTest || outs.length > MAX_FACT_BRANCHES) return joined;
  const tests = conds.map((c) => (c ? env.atomTest!(unparen(c)) : undefined));
  let out: State = joined;
  for (const atom of new Set(tests.filter((t): t is AtomTest => !!t).map((t) => t.atom))) {
    // `hasattr(o, "a")` stays one fact only while no branch writes `o.a`
    if (atom.startsWith('hasattr(') && writesAttr(cx.text, n, atom)) continue;
    const { cases, branches } = branchCases(cx, atom, tests, outs);
    const d = factDef(cx, n, atom);
    mergeCases(cx, d, cases.map((c, j) => ({ ...c, branch: branches[j]! })));
    out = setKey(out, `#${atom}`, new Set([d]));
  }
  return out;
}

/** The values of `atom` on each completed branch of an if-chain, and the branch's end state. */
function branchCases(cx: FlowState, atom: string, tests: Array<AtomTest | undefined>, outs: State[]): { cases: FactInfo['cases']; branches: string[] } {
  let running: ValueSet = ANY;
  const cases: FactInfo['cases'] = [];
  const branches: string[] = [];
  outs.forEach((o, i) => {
    const t = tests[i];
    const desc = t && t.atom === atom ? intersect(running, caseOf(t, true)) : running;
    if (t && t.atom === atom) running = intersect(running, caseOf(t, false));
    if (!o || isEmptySet(desc)) return;
    // an earlier fact over the atom splits this branch further (keeps both correlations)
    const old = factOf(o, atom);
    if (old && old.cases.length * outs.length <= 32) {
      old.cases.forEach((oc, j) => {
        const d = intersect(desc, oc.desc);
        const end = isEmptySet(d) ? null : restrictByFact(cx, o, atom, d);
        if (end) { cases.push({ desc: d, end }); branches.push(`${i}:${j}`); }
      });
    } else { cases.push({ desc, end: o }); branches.push(`${i}`); }
  });
  return { cases, branches };
}

/** Merge a join's cases into its fact def, with what an earlier pass over the statement recorded (loop
 *  bodies, finally blocks): a case of the same branch joins its end state; a change counts in `factEpoch`. */
export function mergeCases(cx: FlowState, d: Def, cases: ReadonlyArray<FactInfo['cases'][number] & { branch: string }>): void {
  const prev = d.fact!.cases as Array<FactInfo['cases'][number] & { branch?: string }>;
  for (const c of cases) {
    const old = prev.find((p) => p.branch === c.branch);
    if (old) {
      const end = cx.join(old.end, c.end) ?? old.end;
      if (end !== old.end) { old.end = end; cx.factEpoch++; }
    } else {
      prev.push(c);
      cx.factEpoch++;
    }
  }
}

/** The fact def of `atom` at the if-statement `n` (one per statement and atom, across passes). */
export function factDef(cx: FlowState, n: PyNode, atom: string): Def {
  let perNode = cx.factDefs.get(n);
  if (!perNode) cx.factDefs.set(n, (perNode = new Map()));
  let d = perNode.get(atom);
  if (!d) perNode.set(atom, (d = { id: cx.newId(), key: `#${atom}`, name: atom, kind: 'fact', node: null, fact: { atom, cases: [] } }));
  return d;
}

/** Something under `n` writes the attribute a `hasattr(…)` atom tests. */
function writesAttr(text: string, n: PyNode, atom: string): boolean {
  const src = (x: PyNode) => text.slice(x.start, x.end);
  let found = false;
  const walkW = (x: PyNode) => {
    if (found) return;
    if (x.type === 'assignment' || x.type === 'augmented_assignment' || x.type === 'delete_statement' || x.type === 'call') {
      const t = x.type === 'call' ? src(field(x, 'function') ?? x) : '';
      if (t === 'setattr' || t === 'delattr') {
        const obj = named(field(x, 'arguments') ?? x)[0];
        if (obj && atom.startsWith(`hasattr(${src(obj)},`)) found = true;
      }
      const targets = x.type === 'delete_statement' ? named(x) : x.type === 'call' ? [] : [field(x, 'left')].filter((y): y is PyNode => !!y);
      const check = (tg: PyNode) => {
        const u = unparen(tg);
        if (u.type === 'attribute') {
          const o = field(u, 'object');
          const a = field(u, 'attribute');
          if (o && a && hasattrAtom(src(o), src(a)) === atom) found = true;
        } else if (SEQUENCE_TARGETS.includes(u.type)) named(u).forEach(check);
      };
      targets.forEach(check);
    }
    for (const c of x.children) if (c.named) walkW(c);
  };
  walkW(n);
  return found;
}

/** A write to `obj.attr` (assignment, augmented assignment, del, setattr/delattr) ends `hasattr(obj, "attr")` facts. */
export function dropAttrFacts(cx: FlowState, s: State, target: PyNode): State {
  if (!s) return s;
  const u = unparen(target);
  if (u.type === 'attribute') {
    const o = field(u, 'object');
    const at = field(u, 'attribute');
    const key = o && at ? `#${hasattrAtom(cx.src(o), cx.src(at))}` : '';
    if (key && s.has(key)) return deleteKey(s, key);
    return s;
  }
  if (SEQUENCE_TARGETS.includes(u.type)) for (const k of named(u)) s = dropAttrFacts(cx, s, k);
  return s;
}

/** `setattr(obj, …)` / `delattr(obj, …)` end every `hasattr(obj, …)` fact. */
export function dropAllAttrFacts(s: State, obj: string): State {
  if (!s) return s;
  const prefix = `#hasattr(${obj},`;
  let m = s;
  for (const k of s.hashKeyList()) if (k.startsWith(prefix)) m = deleteKey(m, k);
  return m;
}
