/**
 * A name a `try` binds from an attribute every instance has, read in one of its handlers:
 *
 * ```python
 * env = get_env()                 # returns the module's ENV, only ever None or Env(...)
 * if env is None:
 *     return 'failed'
 * try:
 *     task = env.task             # Env.__init__ always sets self.task
 *     ...
 * except Exception:
 *     log(f'failed on {task}')   # bound: the read above cannot raise
 * ```
 *
 * The attribute read raises only when the object lacks the attribute. When every value the object can
 * have here is an instance of a class whose own `__init__` assigns `self.<attr>` as a statement of its
 * body that every path from its entry reaches (no `return`/`raise` before it: so no instance exists
 * without it; a base's `__init__` is not followed), with no `__getattr__`/`__getattribute__`, no method
 * or property of that name in the class or its bases the project holds, no code in the project that can
 * delete the attribute (`del x.<attr>`, `delattr`, popping the instance `__dict__`), and a None value is
 * excluded by a test before the `try` (`if x is None: return`, as the flow's narrowing records it), the
 * statement cannot raise.
 * The object's values are followed through its assignments in the function: a class call `C(…)`, or
 * a call of a project function whose every `return` gives a class call, a local holding one, or a
 * module global whose every assignment (at module level or under `global`) is None or such a value.
 *
 * Checked by analysing the file again with those statements made unable to raise (`task = None`,
 * padded so every offset stays put) and asking whether the read is still possibly unbound.
 */
import type { ClassInfo, PythonAnalysis, PythonProject, UnboundRead } from '../../src/lang/python/types.js';
import type { Def } from '../../src/lang/python/flow/state.js';
import { field, named, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';

const MAX_DEPTH = 4;

type Where = { a: PythonAnalysis; cls: ClassInfo };

/** The class a name denotes in a file: defined there, or imported from a project module. */
/** The one class definition named `qualname`, at module level (bare or decorated): a name defined by more
 *  than one class statement (`if sys.platform == "win32": class S … else: class S …`) or inside a block is
 *  not known to be either. */
function onlyClass(a: PythonAnalysis, qualname: string): ClassInfo | 'many' | undefined {
  const all = a.classes().filter((c) => c.qualname === qualname);
  if (all.length > 1) return 'many';
  const c = all[0];
  if (!c) return undefined;
  const p = c.node.parent?.type === 'decorated_definition' ? c.node.parent.parent : c.node.parent;
  return p?.type === 'module' ? c : 'many';
}

function findClass(project: PythonProject, a: PythonAnalysis, name: string): Where | undefined {
  const local = onlyClass(a, name);
  if (local === 'many') return undefined;
  if (local) return { a, cls: local };
  const [head, ...rest] = name.split('.');
  const imp = a.imports().get(head!);
  if (!imp) return undefined;
  const modPath = imp.name ? project.resolveModule(a.path, imp.module, imp.level) : project.resolveModule(a.path, [imp.module, ...rest.slice(0, -1)].join('.'), 0);
  const b = modPath ? project.analysis(modPath) : undefined;
  const target = imp.name ? [imp.name, ...rest].join('.') : rest[rest.length - 1] ?? '';
  const cls = b && onlyClass(b, target);
  return b && cls && cls !== 'many' ? { a: b, cls } : undefined;
}

/** `C(…)` where C is a project class: that class. */
function constructed(project: PythonProject, a: PythonAnalysis, e: PyNode): Where | undefined {
  const u = unparen(e);
  if (u.type !== 'call') return undefined;
  const f = field(u, 'function');
  return f && (f.type === 'identifier' || f.type === 'attribute') ? findClass(project, a, a.src(f)) : undefined;
}

/** A statement that can leave the function early: a `return` in it (outside a nested def, class or
 *  lambda), or a `raise` — anything after it may be skipped on a path that still gives an instance. */
function canLeave(s: PyNode): boolean {
  let leaves = false;
  walk(s, (n) => {
    if (leaves || (n !== s && (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda'))) return false;
    if (n.type === 'return_statement' || n.type === 'raise_statement') leaves = true;
    return leaves ? false : undefined;
  });
  return leaves;
}

/** `self.attr = …` as a statement of `__init__`'s own body (not nested in an if/loop/with/try) reached on
 *  every path from its entry: no statement before it holds a `return` or `raise` that could skip it.
 *  Only the class's own `__init__` is read: a class without one, or one whose assignment comes from a
 *  base's `__init__` through `super().__init__()`, does not count (the base is not followed). */
function setsInInit(w: Where, attr: string): boolean {
  const init = w.cls.methods.get('__init__');
  const body = init && field(init.node, 'body');
  const self = init?.params[0];
  if (!body || !self) return false;
  for (const s of named(body)) {
    const x = s.type === 'expression_statement' ? named(s)[0] : undefined;
    const l = x?.type === 'assignment' ? field(x, 'left') : undefined;
    if (l?.type === 'attribute' && w.a.src(field(l, 'object')!) === self && w.a.src(field(l, 'attribute')!) === attr) return true;
    if (canLeave(s)) return false;
  }
  return false;
}

const DELETES = /\bdel\b|delattr|__dict__|\bvars\s*\(/;

/** Code in a file that can take `attr` off an object: `del x.attr`, `delattr(x, 'attr')` (or with a name
 *  not spelled out), `object.__delattr__(…)`, or through the instance dict (`del x.__dict__[…]`,
 *  `x.__dict__.pop(…)`, `vars(x).pop(…)`, `.popitem()`/`.clear()`, `x.__dict__ = …`). */
function deletesIn(a: PythonAnalysis, attr: string): boolean {
  const isDict = (n: PyNode | undefined): boolean => {
    const u = n && unparen(n);
    if (!u) return false;
    if (u.type === 'attribute') return a.src(field(u, 'attribute')!) === '__dict__';
    return u.type === 'call' && a.src(field(u, 'function')!) === 'vars';
  };
  let found = false;
  walk(a.ast, (n) => {
    if (found) return false;
    if (n.type === 'delete_statement') {
      walk(n, (t) => {
        if ((t.type === 'attribute' && a.src(field(t, 'attribute')!) === attr) || (t.type === 'subscript' && isDict(field(t, 'value')))) found = true;
      });
    } else if (n.type === 'call') {
      const f = field(n, 'function');
      const args = named(field(n, 'arguments') ?? n).filter((x) => x.type !== 'comment');
      if (f && a.src(f) === 'delattr') {
        const name = args[1] && /^(['"])(\w+)\1$/.exec(a.src(args[1]));
        if (!name || name[2] === attr) found = true;
      } else if (f?.type === 'attribute') {
        const m = a.src(field(f, 'attribute')!);
        if (m === '__delattr__' || m === '__delitem__' || ((m === 'pop' || m === 'popitem' || m === 'clear') && isDict(field(f, 'object')))) found = true;
      }
    } else if (n.type === 'assignment' && field(n, 'left')?.type === 'attribute' && a.src(field(field(n, 'left')!, 'attribute')!) === '__dict__') found = true;
    return found ? false : undefined;
  });
  return found;
}

/** Some project file (or the class's own) can delete `attr` from an object. */
function deletedAnywhere(project: PythonProject, w: Where, attr: string): boolean {
  if (deletesIn(w.a, attr)) return true;
  for (const f of project.files()) {
    if (f === w.a.path || !DELETES.test(project.text(f) ?? '')) continue;
    const b = project.analysis(f);
    if (!b || deletesIn(b, attr)) return true;
  }
  return false;
}

/** No class on the way (the class and the bases the project holds) makes reading `attr` run code or drop it. */
function plainAttribute(project: PythonProject, w: Where, attr: string, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  const m = w.cls.methods;
  if (m.has(attr) || m.has('__getattr__') || m.has('__getattribute__') || m.has('__delattr__') || m.has('__new__')) return false;
  let dropped = false;
  walk(w.cls.node, (n) => {
    // a class-level `attr = property(…)` (a descriptor runs code on the read)
    if (n.type === 'assignment' && n.parent?.parent?.parent === w.cls.node && w.a.src(field(n, 'left')!) === attr && field(n, 'right')?.type === 'call') dropped = true;
    return dropped ? false : undefined;
  });
  if (dropped) return false;
  for (const b of w.cls.bases) {
    const base = findClass(project, w.a, b);
    if (base && !plainAttribute(project, base, attr, depth + 1)) return false;
  }
  return true;
}

type Values = { classes: Where[]; none: boolean } | undefined;

const join = (xs: Values[]): Values => (xs.some((x) => !x) ? undefined : { classes: xs.flatMap((x) => x!.classes), none: xs.some((x) => x!.none) });

/** What an expression can be: instances of project classes, or None. */
function valuesOf(project: PythonProject, a: PythonAnalysis, e: PyNode, depth: number): Values {
  if (depth > MAX_DEPTH) return undefined;
  const u = unparen(e);
  if (u.type === 'none') return { classes: [], none: true };
  const c = constructed(project, a, u);
  if (c) return { classes: [c], none: false };
  if (u.type === 'identifier') {
    const defs = a.reachingDefs(u);
    // a local: what each reaching assignment gives; else a module global (declared `global`, or read only)
    if (defs?.length) return join(defs.map((d) => defValues(project, a, d, depth + 1)));
    return globalValues(project, a, a.src(u), depth + 1);
  }
  if (u.type === 'call') {
    const f = field(u, 'function');
    if (f?.type !== 'identifier') return undefined;
    const r = project.resolveFunction(a.path, a.src(f));
    const b = r && project.analysis(r.file);
    const body = r && field(r.fn.node, 'body');
    if (!r || !b || !body) return undefined;
    // calling an `async def` gives a coroutine, a generator function a generator: neither is what it returns
    if (/^async\b/.test(b.src(r.fn.node))) return undefined;
    const rets: PyNode[] = [];
    let yields = false;
    let bare = false;
    walk(body, (n) => {
      if (n !== body && (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda')) return false;
      if (n.type === 'yield') yields = true;
      if (n.type === 'return_statement') {
        const v = named(n)[0];
        if (v) rets.push(v);
        else bare = true;
      }
      return undefined;
    });
    // falling off the end gives None too: only a body whose last statement returns
    const last = named(body).at(-1);
    if (yields || !rets.length || last?.type !== 'return_statement') return undefined;
    return join([...rets.map((v) => valuesOf(project, b, v, depth + 1)), ...(bare ? [{ classes: [], none: true }] : [])]);
  }
  return undefined;
}

/** What a reaching definition gives: its assigned value, or for a narrowing (`if x is None: return`
 *  before) the values of the definitions it refines, None left out when it established not-None. */
function defValues(project: PythonProject, a: PythonAnalysis, d: Def, depth: number): Values {
  if (depth > MAX_DEPTH * 2) return undefined;
  if (d.kind === 'narrow') {
    if (!d.base?.length) return undefined;
    const v = join(d.base.map((b) => defValues(project, a, b, depth + 1)));
    return v && (d.narrowed === 'not-none' || d.narrowed === 'truthy') ? { classes: v.classes, none: false } : v;
  }
  if (d.kind === 'unbound' || d.kind === 'fact' || !d.value || d.index?.length) return undefined;
  // only a plain `x = value` (a loop target or a context manager's value is another thing)
  if (d.node?.parent?.type !== 'assignment') return undefined;
  return valuesOf(project, a, d.value, depth);
}

/** A module global's values: every assignment to it at module level or in a function that declares it `global`. */
function globalValues(project: PythonProject, a: PythonAnalysis, name: string, depth: number): Values {
  const out: Values[] = [];
  let open = false;
  walk(a.ast, (n) => {
    if (open) return false;
    const isName = (x: PyNode | undefined) => x?.type === 'identifier' && a.src(x) === name;
    if (n.type === 'assignment' && isName(field(n, 'left'))) {
      const fn = a.functionAt(n);
      const declared = !fn || a.src(field(fn.node, 'body')!).match(new RegExp(`^\\s*global\\s+(?:[\\w\\s,]*,\\s*)?${name}\\b`, 'm'));
      if (!declared) return undefined;
      const r = field(n, 'right');
      // `G: Optional[C] = None`; an annotation without a value binds nothing
      if (!r) return undefined;
      const v = fn ? valuesOf(project, a, r, depth) : r.type === 'none' ? { classes: [], none: true } : constructedValues(project, a, r);
      out.push(v);
      if (!v) open = true;
      return undefined;
    }
    // any other binding of the name (augmented, unpacked, a loop target, del, with … as, :=) leaves it open
    if (n.type === 'identifier' && a.src(n) === name) {
      const p = n.parent;
      if (p && (p.type === 'augmented_assignment' || p.type === 'pattern_list' || p.type === 'tuple_pattern' || p.type === 'named_expression' || p.type === 'delete_statement' || p.type === 'as_pattern_target' || (p.type === 'for_statement' && field(p, 'left') === n))) open = true;
    }
    return undefined;
  });
  return open || !out.length ? undefined : join(out);
}

const constructedValues = (project: PythonProject, a: PythonAnalysis, r: PyNode): Values => {
  const c = constructed(project, a, r);
  return c ? { classes: [c], none: false } : undefined;
};

/** `if x is None: … return/raise` (no else) before `at`, in the block that holds it or one around it
 *  within the function, with `x` not assigned between the test and `at`. */
function noneExcluded(a: PythonAnalysis, x: string, at: PyNode, fnNode: PyNode): boolean {
  for (let block = at.parent; block && block !== fnNode; block = block.parent) {
    if (block.type !== 'block') continue;
    for (const s of named(block)) {
      if (s.start >= at.start) break;
      if (s.type !== 'if_statement' || field(s, 'alternative')) continue;
      const cond = field(s, 'condition');
      const cons = field(s, 'consequence');
      const last = cons && named(cons).at(-1);
      if (!cond || !last || (last.type !== 'return_statement' && last.type !== 'raise_statement')) continue;
      const t = a.src(cond).replace(/\s+/g, ' ');
      if (t !== `${x} is None` && t !== `not ${x}`) continue;
      let rebound = false;
      walk(fnNode, (n) => {
        const p = n.parent;
        if (n.type === 'identifier' && a.src(n) === x && n.start > s.end && n.end < at.start && p && (p.type === 'assignment' || p.type === 'augmented_assignment' || p.type === 'named_expression' || p.type === 'pattern_list' || p.type === 'for_statement')) rebound = true;
      });
      if (!rebound) return true;
    }
  }
  return false;
}

/** The statement `name = obj.attr` cannot raise: every value `obj` can have is an instance that has `attr`. */
function cannotRaise(project: PythonProject, a: PythonAnalysis, stmt: PyNode, fnNode: PyNode): boolean {
  const x = named(stmt)[0]!;
  const r = unparen(field(x, 'right')!);
  const obj = field(r, 'object')!;
  const attr = a.src(field(r, 'attribute')!);
  const vals = valuesOf(project, a, obj, 0);
  if (!vals || !vals.classes.length) return false;
  if (vals.none && !noneExcluded(a, a.src(obj), stmt, fnNode)) return false;
  return vals.classes.every((w) => setsInInit(w, attr) && plainAttribute(project, w, attr) && !deletedAnywhere(project, w, attr));
}

export function boundByAttributeRead(a: PythonAnalysis, read: UnboundRead, project: PythonProject): boolean {
  if (read.kind !== 'maybe') return false;
  const fn = a.functionAt(read.node);
  if (!fn) return false;
  // the try whose handler holds the read
  let handler: PyNode | undefined;
  for (let p = read.node.parent; p && p !== fn.node; p = p.parent) if (p.type === 'except_clause') { handler = p; break; }
  const tryNode = handler?.parent;
  const body = tryNode?.type === 'try_statement' ? field(tryNode, 'body') : undefined;
  if (!body) return false;
  // `name = obj.attr` statements of the try's body
  const sites = named(body).filter((s) => {
    const x = s.type === 'expression_statement' && named(s).length === 1 ? named(s)[0] : undefined;
    const l = x?.type === 'assignment' && !field(x, 'type') ? field(x, 'left') : undefined;
    const r = x && field(x, 'right') && unparen(field(x, 'right')!);
    return l?.type === 'identifier' && a.src(l) === read.name && r?.type === 'attribute' && field(r, 'object')?.type === 'identifier';
  });
  const safe = sites.filter((s) => cannotRaise(project, a, s, fn.node));
  if (!safe.length) return false;
  let text = a.text;
  for (const s of [...safe].sort((x, y) => y.start - x.start)) {
    const r = field(named(s)[0]!, 'right')!;
    text = text.slice(0, r.start) + 'None'.padEnd(r.end - r.start, ' ') + text.slice(r.end);
  }
  const b = project.analyseCode(text);
  return !b.unboundReads().some((u) => u.node.start === read.node.start && u.name === read.name);
}
