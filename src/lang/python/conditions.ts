/**
 * Pure conditions ("atoms") and the constraints that `if`/`elif`/`else` put on them.
 *
 * An atom is an expression whose value cannot change while the verifier runs: the host platform
 * (`platform.system()`, `sys.platform`, `os.name`, or a name bound once to one of them), a module
 * constant (a module name bound exactly once, to a literal or a platform test), a parameter its function
 * never rebinds (`p is None`; its truth and `p == 3` when its default or annotation says it is a
 * boolean, integer or string), and `hasattr(obj, "x")`
 * (pure until `obj.x` is written; the flow drops the fact at such a write). Two tests of the same
 * atom are one fact, so a name bound under the first and read under the second is bound.
 *
 * A test of an atom is `atom ∈ values` (or its negation); a branch of an if-chain constrains the
 * atom to a `ValueSet` (`in` a finite set, or `notIn` one).
 */
import { type PyNode, field, named, unparen, firstNamed } from './tree.js';
import { type ScopeTable, resolveScope, soleAssignment } from './scopes.js';

/** Atoms whose value is the host platform (what `conditionGuards` reports as `platform`). */
const PLATFORM_ATOMS = new Set(['platform.system()', 'sys.platform', 'os.name', 'platform.platform()', 'platform.machine()', 'platform.release()', 'platform.uname().system']);
/** Atoms with a two-valued domain (truth of a predicate). */
const BOOL = ['T', 'F'];

export interface AtomTest {
  atom: string;
  /** The test is true exactly when the atom's value is in `values` (`positive`) or not in it. */
  values: string[];
  positive: boolean;
  /** Finite domain of the atom (two-valued predicates), when known. */
  domain?: string[];
  platform: boolean;
}

export type ValueSet = { in: Set<string> } | { notIn: Set<string> };

export const ANY: ValueSet = { notIn: new Set() };

/** The values the atom may hold when the test evaluates to `truth`. */
export function caseOf(t: AtomTest, truth: boolean): ValueSet {
  const inSet = t.positive === truth;
  if (inSet) return { in: new Set(t.values) };
  if (t.domain) return { in: new Set(t.domain.filter((v) => !t.values.includes(v))) };
  return { notIn: new Set(t.values) };
}

export function intersect(a: ValueSet, b: ValueSet): ValueSet {
  if ('in' in a && 'in' in b) return { in: new Set([...a.in].filter((v) => b.in.has(v))) };
  if ('in' in a && 'notIn' in b) return { in: new Set([...a.in].filter((v) => !b.notIn.has(v))) };
  if ('notIn' in a && 'in' in b) return { in: new Set([...b.in].filter((v) => !a.notIn.has(v))) };
  return { notIn: new Set([...(a as { notIn: Set<string> }).notIn, ...(b as { notIn: Set<string> }).notIn]) };
}

export function isEmptySet(a: ValueSet): boolean {
  return 'in' in a && a.in.size === 0;
}

/** Every value allowed by `a` is allowed by `b`. */
export function subsetOf(a: ValueSet, b: ValueSet): boolean {
  if ('in' in a) return [...a.in].every((v) => ('in' in b ? b.in.has(v) : !b.notIn.has(v)));
  if ('in' in b) return false;
  return [...b.notIn].every((v) => a.notIn.has(v));
}

/** A literal's value as a key (`s:fast`, `i:3`, `k:None`). A string is keyed by its text, so only one
 *  whose text is its value: no prefix but `u`, no escape (`'a\x62'` is `'ab'`, `r'\d'` is not `'\d'`). */
export function literalKey(n: PyNode, text: string): string | undefined {
  const u = unparen(n);
  const t = text.slice(u.start, u.end);
  switch (u.type) {
    case 'string':
      // (nor a line break: CPython reads a CRLF inside a literal as LF)
      if (u.children.some((c) => c.type === 'interpolation') || !/^[uU]?['"]/.test(t) || /[\\\r\n]/.test(t)) return undefined;
      return `s:${t.replace(/^[rRuU]*(['"]{3}|['"])([\s\S]*)\1$/, '$2')}`;
    case 'integer': {
      // beyond 2^53 two integers would share a key
      const v = Number(t.replace(/_/g, ''));
      return Number.isSafeInteger(v) ? `i:${v}` : undefined;
    }
    case 'true': case 'false': case 'none': return `k:${t}`;
  }
  return undefined;
}

export function literalKeys(n: PyNode, text: string): string[] | undefined {
  const u = unparen(n);
  if (u.type === 'tuple' || u.type === 'list' || u.type === 'set') {
    const out: string[] = [];
    for (const k of named(u)) {
      const v = literalKey(k, text);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  }
  const v = literalKey(u, text);
  return v === undefined ? undefined : [v];
}

/**
 * Canonical pure conditions of one unit. `atomOf` resolves names through their single binding
 * (`os_name = platform.system()` → `platform.system()`), so aliases in different functions meet.
 */
export class Conditions {
  private cache = new Map<PyNode, AtomTest | null>();
  constructor(private readonly text: string, private readonly table: ScopeTable) {}

  private src(n: PyNode): string {
    return this.text.slice(n.start, n.end);
  }

  /** The single value a name is ever bound to in its scope (`x = <value>` once, nothing else). */
  private soleValue(id: PyNode): { value: PyNode; module: boolean; name: string } | undefined {
    const r = this.table.readByNode.get(id);
    if (!r) return undefined;
    const sc = resolveScope(r.scope, r.name);
    const sole = sc ? soleAssignment(sc, r.name) : undefined;
    return sole && { value: sole.value, module: sc!.kind === 'module', name: r.name };
  }

  /** A parameter no statement of its function rebinds (nor `del`s, nor a nested function through
   *  `nonlocal`): the object it names is the one the call passed, for the whole run of the function. */
  private paramAtom(n0: PyNode): string | undefined {
    const n = unparen(n0);
    const r = n.type === 'identifier' ? this.table.readByNode.get(n) : undefined;
    const sc = r ? resolveScope(r.scope, r.name) : null;
    const bs = sc?.bindings.get(r!.name);
    return bs?.length === 1 && bs[0]!.kind === 'param' ? `param:${bs[0]!.node.start}:${r!.name}` : undefined;
  }

  /** `paramAtom` of a parameter whose value cannot change in place: its default is a boolean, integer or
   *  string literal, or its annotation `bool`, `int` or `str` (`def construct(node, deep=False)`), so its
   *  truth and equality are the same at every test. */
  private immutableParam(n0: PyNode): string | undefined {
    const atom = this.paramAtom(n0);
    if (!atom) return undefined;
    const r = this.table.readByNode.get(unparen(n0))!;
    const decl = resolveScope(r.scope, r.name)!.bindings.get(r.name)![0]!.node.parent;
    if (!decl) return undefined;
    const value = field(decl, 'value');
    const lit = value ? literalKey(value, this.text) : undefined;
    const type = field(decl, 'type');
    const immutable = (lit !== undefined && lit !== 'k:None') || (!!type && /^(bool|int|str)$/.test(this.src(type)));
    return immutable ? atom : undefined;
  }

  /** Canonical text of a pure value expression, or undefined. */
  atomOf(n0: PyNode, depth = 0): string | undefined {
    if (depth > 4) return undefined;
    const n = unparen(n0);
    const t = this.src(n).replace(/\s+/g, '');
    if (PLATFORM_ATOMS.has(t)) return t;
    if (n.type === 'identifier') {
      const sv = this.soleValue(n);
      if (!sv) return undefined;
      const inner = this.atomOf(sv.value, depth + 1);
      if (inner) return inner;
      // a module constant: bound once to a literal or to a test of a pure atom
      if (sv.module && (literalKeys(sv.value, this.text) || this.test(sv.value, depth + 1))) return `const:${sv.name}`;
    }
    return undefined;
  }

  isPlatformAtom(atom: string): boolean {
    return PLATFORM_ATOMS.has(atom);
  }

  /** The condition as a test of one atom, or undefined when it is not a pure test. */
  test(n0: PyNode, depth = 0): AtomTest | undefined {
    const n = unparen(n0);
    if (depth === 0 && this.cache.has(n)) return this.cache.get(n) ?? undefined;
    const r = this.computeTest(n, depth);
    if (depth === 0) this.cache.set(n, r ?? null);
    return r;
  }

  private computeTest(n: PyNode, depth: number): AtomTest | undefined {
    const mk = (atom: string, values: string[], positive: boolean, domain?: string[]): AtomTest =>
      ({ atom, values, positive, domain, platform: PLATFORM_ATOMS.has(atom) || PLATFORM_ATOMS.has(atom.replace(/\.startswith\(.*$/, '')) });
    switch (n.type) {
      case 'not_operator': {
        const a = field(n, 'argument') ?? firstNamed(n);
        const inner = a ? this.test(a, depth + 1) : undefined;
        return inner ? { ...inner, positive: !inner.positive } : undefined;
      }
      case 'comparison_operator': {
        const kids = named(n);
        const ops = n.children.filter((c) => !c.named).map((c) => c.type);
        if (kids.length !== 2 || ops.length < 1) return undefined;
        const op = ops.join(' ');
        const [l, r] = [kids[0]!, kids[1]!];
        if (op === 'in' || op === 'not in') {
          const atom = this.atomOf(l, depth);
          const vals = atom ? literalKeys(r, this.text) : undefined;
          return atom && vals ? mk(atom, vals, op === 'in') : undefined;
        }
        if (op !== '==' && op !== '!=' && op !== 'is' && op !== 'is not') return undefined;
        // `param is None` / `param is not None`: identity, which only a new binding changes
        if (op === 'is' || op === 'is not') {
          const param = unparen(r).type === 'none' ? this.paramAtom(l) : unparen(l).type === 'none' ? this.paramAtom(r) : undefined;
          if (param) return mk(param, ['k:None'], op === 'is');
        }
        let atom = this.atomOf(l, depth) ?? this.immutableParam(l);
        let lit = atom ? literalKey(r, this.text) : undefined;
        if (!atom || lit === undefined) {
          atom = this.atomOf(r, depth) ?? this.immutableParam(r);
          lit = atom ? literalKey(l, this.text) : undefined;
        }
        if (!atom || lit === undefined) return undefined;
        return mk(atom, [lit], op === '==' || op === 'is');
      }
      case 'call': {
        const fn = field(n, 'function');
        const args = field(n, 'arguments');
        const as = args ? named(args) : [];
        if (!fn) return undefined;
        const ft = this.src(fn);
        if (ft === 'hasattr' && as.length === 2 && as[0]!.type === 'identifier' && literalKey(as[1]!, this.text)?.startsWith('s:')) {
          // the object must be one binding (a parameter or a name bound once) for the test to be about one object
          const r = this.table.readByNode.get(as[0]!);
          const sc = r ? resolveScope(r.scope, r.name) : null;
          if (!sc || (sc.bindings.get(r!.name)?.length ?? 0) !== 1) return undefined;
          return mk(hasattrAtom(this.src(as[0]!), literalKey(as[1]!, this.text)!.slice(2)), ['T'], true, BOOL);
        }
        if (fn.type === 'attribute' && this.src(field(fn, 'attribute')!) === 'startswith' && as.length === 1) {
          const recv = field(fn, 'object');
          const atom = recv ? this.atomOf(recv, depth) : undefined;
          const lit = literalKeys(as[0]!, this.text);
          return atom && lit ? mk(`${atom}.startswith(${lit.join('|')})`, ['T'], true, BOOL) : undefined;
        }
        return undefined;
      }
      case 'identifier': {
        const atom = this.atomOf(n, depth);
        if (atom?.startsWith('const:')) return mk(`truthy(${atom})`, ['T'], true, BOOL);
        const param = this.immutableParam(n);
        return param ? mk(`truthy(${param})`, ['T'], true, BOOL) : undefined;
      }
    }
    return undefined;
  }

  /**
   * Constraints on atoms that hold wherever `node` runs, from the `if`/`elif`/`else` branches that
   * enclose it up to (not across) its function. `exact` is true when every enclosing condition up to
   * there is a pure test and the node sits directly in the branch blocks (the branch runs iff the
   * constraints hold) — what a binding needs for "bound whenever the atom has this value".
   */
  guards(node: PyNode): { constraints: Map<string, ValueSet>; exact: boolean; fn: PyNode | undefined } {
    const constraints = new Map<string, ValueSet>();
    let exact = true;
    const add = (atom: string, v: ValueSet) => constraints.set(atom, intersect(constraints.get(atom) ?? ANY, v));
    let fn: PyNode | undefined;
    for (let c: PyNode = node, p = node.parent; p; c = p, p = p.parent) {
      if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') {
        if (p.type === 'function_definition') fn = p;
        if (p.type !== 'class_definition') break;
        exact = false;
        continue;
      }
      if (p.type === 'block' || p.type === 'module') {
        // an earlier `if <test>: return/raise` (no else) in the same block: what follows runs only when it failed
        for (const prev of p.children) {
          if (prev.start >= c.start) break;
          if (prev.type !== 'if_statement' || field(prev, 'alternative')) continue;
          const body = field(prev, 'consequence');
          const last = body ? named(body).filter((k) => k.type !== 'comment').pop() : undefined;
          if (!last || (last.type !== 'return_statement' && last.type !== 'raise_statement')) continue;
          const cn = field(prev, 'condition');
          const t = cn ? this.test(cn) : undefined;
          if (t) add(t.atom, caseOf(t, false));
          else exact = false;
        }
        continue;
      }
      if (p.type === 'expression_statement' || p.type === 'decorated_definition') continue;
      if (p.type === 'import_statement' || p.type === 'import_from_statement' || p.type === 'assignment' || p.type === 'aliased_import' || p.type === 'dotted_name' || p.type === 'pattern_list' || p.type === 'expression_list') continue;
      if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'else_clause') {
        const ifNode = p.type === 'if_statement' ? p : p.parent;
        if (!ifNode || ifNode.type !== 'if_statement') { exact = false; continue; }
        // a chain of thousands of branches is not read: each binding in it would read every condition
        // before its own (issue 30: 131,600 `elif` branches binding one name ran for minutes)
        if (ifNode.children.length > MAX_GUARD_BRANCHES) { exact = false; continue; }
        // which branch: the consequence of the if, an elif (by index) or the else
        let branch: number;
        if (p.type === 'if_statement') branch = c.field === 'consequence' ? 0 : -1;
        else if (p.type === 'elif_clause') branch = c.field === 'consequence' ? elifIndex(ifNode, p) : -1;
        else branch = Infinity;
        if (branch === -1) { exact = false; continue; }
        const conds = [field(ifNode, 'condition'), ...named(ifNode).filter((k) => k.type === 'elif_clause').map((k) => field(k, 'condition'))];
        const upto = branch === Infinity ? conds.length : branch;
        for (let i = 0; i <= Math.min(upto, conds.length - 1); i++) {
          const cn = conds[i];
          const t = cn ? this.test(cn) : undefined;
          if (!t) { exact = false; continue; }
          add(t.atom, caseOf(t, i === upto));
        }
        // go on from the if statement (the elif/else clause was handled with it)
        if (p !== ifNode) { c = p; p = ifNode; }
        continue;
      }
      exact = false;
    }
    return { constraints, exact, fn };
  }
}

/** Children of an if statement (its elif and else clauses) above which `guards` does not read its conditions. */
const MAX_GUARD_BRANCHES = 1000;

function elifIndex(ifNode: PyNode, elif: PyNode): number {
  return 1 + named(ifNode).filter((k) => k.type === 'elif_clause').indexOf(elif);
}

export function hasattrAtom(obj: string, attr: string): string {
  return `hasattr(${obj},${attr})`;
}
