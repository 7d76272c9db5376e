/**
 * A module whose namespace its own code writes by name: a read of a name no statement binds is then not
 * known to fail. Where every write names its keys, those names are bound; where one does not (a computed
 * key, a table of names, `exec`), any name may be, as after `from m import *`.
 *
 *   globals()["EXPECTED"] = load()                     # EXPECTED
 *   globals().update(LIMIT=10)                         # LIMIT
 *   setattr(sys.modules[__name__], "GAMMA", 3)         # GAMMA
 *   sys.modules[__name__].DELTA = 4                    # DELTA
 *   globals().update(http.HTTPStatus.__members__)      # any name (CPython's http/client.py)
 *   mod_dict = globals(); mod_dict["CO_" + v] = k      # any name, through an alias (inspect.py)
 *   sys.modules[__name__].__dict__.update(table)       # any name
 *   exec(code)                                         # at module level: any name
 *   @global_enum class Month(IntEnum): …               # enum exports the members (calendar.py): any name
 *   IntEnum._convert_("Options", __name__, …)          # enum builds the class in the module (ssl.py): any name
 *
 * `vars()`, `locals()` and `exec` without explicit globals write the module only at module level (in a function they
 * are its locals); `globals()` is the module's namespace wherever it is called; `exec(code, globals(), ns)`
 * writes `ns`. `globals`, `vars`, `exec` and `setattr` count only as the builtins (not bound in the module).
 */
import { field, named, unparen, walk, type PyNode } from './tree.js';
import type { Resolution } from './types.js';

/** What the module's code may bind by name: `any`, or these names. */
export interface NamespaceWrites {
  any: boolean;
  names: Set<string>;
}

/** Text every such write needs: a module without it is not walked. */
const SCREEN = /\bglobals\s*\(|\bvars\s*\(|\blocals\s*\(|\bsys\s*\.\s*modules\b|\bexec\s*\(|\bglobal_enum\b|\b_convert_?\s*\(/;

/** Methods that add names to a dict in place. */
const WRITERS = new Set(['update', 'setdefault', '__setitem__']);

/** The enum module's functions that put an enum's members, or the enum itself, in the module's namespace. */
const ENUM_EXPORTS = /^(?:enum\.)?global_enum$/;
const ENUM_CONVERTERS = new Set(['_convert_', '_convert']);

const compact = (text: string, n: PyNode): string => text.slice(n.start, n.end).replace(/\s+/g, '');

/** Inside no function, lambda or class body: code that runs in the module's namespace. */
function atModuleLevel(n: PyNode): boolean {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') return false;
  return true;
}

/** The node is the whole left side of `=` or of an augmented assignment (`+=`, `|=`). */
function assignedTo(n: PyNode): boolean {
  const p = n.parent;
  return (p?.type === 'assignment' || p?.type === 'augmented_assignment') && field(p, 'left') === n;
}

/** What a key binds: the identifier a plain string literal spells; null for a literal that spells no
 *  identifier (a number, bytes, `"a-b"`: no name can read it); undefined for a computed key. */
function keyName(text: string, n0: PyNode): string | null | undefined {
  const n = unparen(n0);
  if (n.type === 'integer' || n.type === 'float' || n.type === 'true' || n.type === 'false' || n.type === 'none') return null;
  if (n.type !== 'string' || n.children.some((k) => k.type === 'interpolation')) return undefined;
  const t = text.slice(n.start, n.end);
  if (/^[rRuU]*[bB]/.test(t)) return null;
  const m = /^[rRuU]?(['"]{3}|['"])([\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*)\1$/u.exec(t);
  return m ? m[2] : /^[rRuU]?(['"]{3}|['"])[^'"\\{}]*\1$/.test(t) ? null : undefined;
}

class Scan {
  readonly writes: NamespaceWrites = { any: false, names: new Set() };
  private readonly aliases = new Set<string>();

  constructor(
    private readonly text: string,
    /** What a name read there resolves to. */
    private readonly resolve: (id: PyNode) => Resolution,
  ) {}

  private builtin(id: PyNode): boolean {
    return this.resolve(id) === 'builtin';
  }

  /** `globals()` anywhere, `vars()` / `locals()` at module level, `sys.modules[__name__].__dict__`, or an
   *  alias of one (a module-level name, read where no function binds it locally). */
  namespace(e0: PyNode): boolean {
    const e = unparen(e0);
    if (e.type === 'identifier') return this.aliases.has(compact(this.text, e)) && this.resolve(e) === 'module';
    if (e.type === 'call' && !named(field(e, 'arguments') ?? e).length) {
      const f = unparen(field(e, 'function') ?? e);
      const t = compact(this.text, f);
      if (f.type === 'identifier' && (t === 'globals' || ((t === 'vars' || t === 'locals') && atModuleLevel(e)))) return this.builtin(f);
      return false;
    }
    return compact(this.text, e) === 'sys.modules[__name__].__dict__';
  }

  /** Module-level names bound once, to the namespace (`mod_dict = globals()`): another binding of the
   *  name at module level (`ns = {}`) makes it no alias. */
  collectAliases(root: PyNode): void {
    const assigned = new Map<string, number>();
    walk(root, (n) => {
      if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') return false;
      if (n.type !== 'assignment' && n.type !== 'augmented_assignment' && n.type !== 'for_statement' && n.type !== 'named_expression') return undefined;
      const left = field(n, n.type === 'named_expression' ? 'name' : 'left');
      if (!left) return undefined;
      // names the target binds (`x`, `x, y`); `ns[k] = v` and `ns.a = v` bind none
      const ids = left.type === 'identifier' ? [left] : left.type === 'pattern_list' || left.type === 'tuple_pattern' || left.type === 'list_pattern' ? named(left) : [];
      for (const id of ids) if (id.type === 'identifier') assigned.set(compact(this.text, id), (assigned.get(compact(this.text, id)) ?? 0) + 1);
      const right = field(n, n.type === 'named_expression' ? 'value' : 'right');
      if (n.type === 'assignment' && left.type === 'identifier' && right && this.namespace(right)) this.aliases.add(compact(this.text, left));
      return undefined;
    });
    for (const a of [...this.aliases]) if (assigned.get(a) !== 1) this.aliases.delete(a);
  }

  /** A write of the name `key` names (a string literal), of none, or of any name (a computed key). */
  private key(k: PyNode | undefined): void {
    if (!k) return;
    const name = keyName(this.text, k);
    if (name === undefined) this.writes.any = true;
    else if (name !== null) this.writes.names.add(name);
  }

  visit(n: PyNode): void {
    const text = this.text;
    if (n.type === 'decorator' && ENUM_EXPORTS.test(compact(text, named(n)[0] ?? n))) this.writes.any = true;
    if (n.type === 'subscript' && this.namespace(field(n, 'value') ?? n)) {
      // `globals()[k] = v` (or `+=`) binds a name; a read or a `del` binds none
      if (assignedTo(n)) this.key(field(n, 'subscript') ?? undefined);
      return;
    }
    // `sys.modules[__name__].X = v`: the module object's attribute is its global X
    if (n.type === 'attribute' && compact(text, field(n, 'object') ?? n) === 'sys.modules[__name__]') {
      if (assignedTo(n)) this.writes.names.add(compact(text, field(n, 'attribute') ?? n));
      return;
    }
    if (n.type !== 'call') return;
    const f = unparen(field(n, 'function') ?? n);
    const args = named(field(n, 'arguments') ?? n).filter((k) => k.type !== 'comment');
    const method = f.type === 'attribute' ? compact(text, field(f, 'attribute') ?? f) : undefined;
    if (method && WRITERS.has(method) && this.namespace(field(f, 'object') ?? f)) {
      if (method === 'update') this.updateKeys(args);
      else this.key(args[0]);
    }
    // `IntEnum._convert_("Options", __name__, …)`: the enum and its members become the module's globals
    if (method && ENUM_CONVERTERS.has(method) && args.some((k) => compact(text, k) === '__name__')) this.writes.any = true;
    if (f.type !== 'identifier' || !this.builtin(f)) return;
    const name = compact(text, f);
    if (name === 'setattr' && args[0] && compact(text, args[0]) === 'sys.modules[__name__]') this.key(args[1]);
    // exec(code) at module level, or exec(code, globals()) anywhere (with a third argument it writes that)
    if (name === 'exec') {
      const kw = (k: string) => args.find((x) => x.type === 'keyword_argument' && compact(text, field(x, 'name') ?? x) === k);
      const positional = args.filter((x) => x.type !== 'keyword_argument');
      const globalsArg = positional[1] ?? (kw('globals') && field(kw('globals')!, 'value'));
      const locals = positional[2] ?? (kw('locals') && field(kw('locals')!, 'value'));
      // `exec(code, globals(), None)`: no locals of its own
      const localsArg = locals && unparen(locals).type !== 'none' ? locals : undefined;
      if (!localsArg && (globalsArg ? this.namespace(globalsArg) : atModuleLevel(n))) this.writes.any = true;
    }
  }

  /** `update(X=…)`, `update({"X": …})`: those names; `update(table)`: any. */
  private updateKeys(args: PyNode[]): void {
    for (const a of args) {
      if (a.type === 'keyword_argument') this.writes.names.add(compact(this.text, field(a, 'name') ?? a));
      else if (unparen(a).type === 'dictionary') {
        for (const p of named(unparen(a))) {
          if (p.type === 'pair') this.key(field(p, 'key') ?? undefined);
          else if (p.type !== 'comment') this.writes.any = true;
        }
      } else this.writes.any = true;
    }
  }
}

/** What the module's code binds by name in its own namespace (see above); undefined when nothing. */
export function namespaceWrites(root: PyNode, text: string, resolve: (id: PyNode) => Resolution): NamespaceWrites | undefined {
  if (!SCREEN.test(text)) return undefined;
  const scan = new Scan(text, resolve);
  scan.collectAliases(root);
  walk(root, (n) => {
    if (scan.writes.any) return false;
    scan.visit(n);
    return undefined;
  });
  return scan.writes.any || scan.writes.names.size ? scan.writes : undefined;
}

/**
 * Whether the module's code reaches its own namespace by name at all, to read or to write: `globals()`,
 * `vars()` / `locals()` at module level or `exec` there (the builtins), or `sys.modules[__name__]`. A
 * module-level value may then be changed without its name being written (`vars()["ROWS"].append(…)`).
 */
export function reachesNamespace(root: PyNode, text: string, resolve: (id: PyNode) => Resolution): boolean {
  if (!SCREEN.test(text)) return false;
  let found = false;
  walk(root, (n) => {
    if (found) return false;
    if (n.type === 'subscript' && compact(text, n) === 'sys.modules[__name__]') found = true;
    if (n.type !== 'call') return undefined;
    const f = unparen(field(n, 'function') ?? n);
    if (f.type !== 'identifier' || resolve(f) !== 'builtin') return undefined;
    const name = compact(text, f);
    const args = named(field(n, 'arguments') ?? n).filter((k) => k.type !== 'comment');
    if (name === 'globals' || ((name === 'vars' || name === 'locals') && !args.length && atModuleLevel(n)) || (name === 'exec' && atModuleLevel(n))) found = true;
    return undefined;
  });
  return found;
}
