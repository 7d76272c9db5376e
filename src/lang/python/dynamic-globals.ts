/**
 * A module whose namespace its own code writes by name: any name may then be bound when the module
 * runs, as after `from m import *`, and a read of a name no statement binds is not known to fail.
 *
 *   globals().update(http.HTTPStatus.__members__)      # CPython's http/client.py
 *   globals()[name] = make(name)
 *   setattr(sys.modules[__name__], name, value)
 *   sys.modules[__name__].__dict__.update(table)
 *   exec(code)                                         # at module level: the module's namespace
 *
 * `vars()` and `exec` without explicit globals write the module only at module level (in a function they
 * are its locals); `globals()` is the module's namespace wherever it is called.
 */
import { field, named, unparen, walk, type PyNode } from './tree.js';

/** Text every such write needs: a module without it is not walked. */
const SCREEN = /\bglobals\s*\(|\bvars\s*\(|\bsys\s*\.\s*modules\b|\bexec\s*\(/;

/** Methods that add names to a dict in place. */
const WRITERS = new Set(['update', 'setdefault', '__setitem__']);

const compact = (text: string, n: PyNode): string => text.slice(n.start, n.end).replace(/\s+/g, '');

/** Inside no function, lambda or class body: code that runs in the module's namespace. */
function atModuleLevel(n: PyNode): boolean {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') return false;
  return true;
}

/** The expression is the module's namespace: `globals()` anywhere, `vars()` at module level, or
 *  `sys.modules[__name__].__dict__`. */
function namespace(text: string, e0: PyNode): boolean {
  const e = unparen(e0);
  const t = compact(text, e);
  if (t === 'globals()') return true;
  if (t === 'vars()') return atModuleLevel(e);
  return t === 'sys.modules[__name__].__dict__';
}

/** Whether the module's code writes its own namespace by name (see above). */
export function writesGlobals(root: PyNode, text: string): boolean {
  if (!SCREEN.test(text)) return false;
  let found = false;
  walk(root, (n) => {
    if (found) return false;
    if (n.type === 'subscript' && namespace(text, field(n, 'value') ?? n)) {
      // `globals()[k] = v` (or `+=`) binds a name; a read or a `del` binds none
      const p = n.parent;
      if ((p?.type === 'assignment' || p?.type === 'augmented_assignment') && field(p, 'left') === n) found = true;
      return undefined;
    }
    if (n.type !== 'call') return undefined;
    const f = unparen(field(n, 'function') ?? n);
    const args = named(field(n, 'arguments') ?? n).filter((k) => k.type !== 'comment');
    if (f.type === 'attribute' && WRITERS.has(compact(text, field(f, 'attribute') ?? f)) && namespace(text, field(f, 'object') ?? f)) found = true;
    else if (f.type === 'identifier') {
      const name = compact(text, f);
      if (name === 'setattr' && args[0] && compact(text, args[0]) === 'sys.modules[__name__]') found = true;
      // exec(code) at module level, or exec(code, globals()) anywhere
      if (name === 'exec' && ((args.length === 1 && atModuleLevel(n)) || (args[1] && namespace(text, args[1])))) found = true;
    }
    return undefined;
  });
  return found;
}
