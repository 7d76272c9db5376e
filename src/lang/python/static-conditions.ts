/**
 * Conditions whose value is known before the code runs: `TYPE_CHECKING`, the host platform as the
 * checks run it (Linux), and the interpreter's version (Python 3; minor versions against 3.11). The
 * flow takes only the branch such a test selects, so a name bound in a Python 2 branch
 * (`if sys.version_info[0] < 3: text_type = unicode`) is neither read nor bound.
 *
 * Forms: `sys.version_info <op> (3, 8)` and its slices (`[:2]`), `sys.version_info[0]` and
 * `.major <op> 3`, `bytes is str` (true only on Python 2), six's `PY2` / `PY3` (`six.PY2`,
 * `from six import PY3`), and a name bound once to one of these (`PY2 = sys.version_info[0] == 2`).
 */
import { type PyNode, named } from './tree.js';
import { type ScopeTable, resolveScope, soleAssignment } from './scopes.js';
import type { ImportInfo, Resolution } from './types.js';

/** The interpreter the checks are decided for. */
const VERSION = [3, 11];
const VERSION_TUPLE = /^sys\.version_info(\[(0?:[23]|:)\])?$/;
const VERSION_MAJOR = /^sys\.version_info(\[0\]|\.major)$/;

export interface StaticContext {
  text: string;
  table: ScopeTable;
  /** Imports of the module, by local name. */
  imports(): ReadonlyMap<string, ImportInfo>;
  /** What a name read resolves to (`PythonAnalysis.resolution`). */
  resolution(id: PyNode): Resolution;
}

function compare(cmp: number, op: string): boolean | undefined {
  switch (op) {
    case '>=': return cmp >= 0;
    case '>': return cmp > 0;
    case '<': return cmp < 0;
    case '<=': return cmp <= 0;
    case '==': return cmp === 0;
    case '!=': return cmp !== 0;
  }
  return undefined;
}

/** A module named six, or a vendored copy of it (`from pip._vendor import six`). */
const isSix = (i: ImportInfo) => (i.name === undefined ? /(^|\.)six$/.test(i.module) : i.name === 'six');

/** six's flags: `six.PY2`, or a name imported from six (`from six import PY3 as ON_PY3`). */
function sixFlag(cx: StaticContext, n: PyNode, t: string): boolean | undefined {
  if (n.type === 'attribute') {
    const m = /^(\w+)\.(PY2|PY3)$/.exec(t);
    const i = m ? cx.imports().get(m[1]!) : undefined;
    return i && isSix(i) ? m![2] === 'PY3' : undefined;
  }
  const i = cx.imports().get(t);
  return i && (i.name === 'PY2' || i.name === 'PY3') && /(^|\.)six$/.test(i.module) ? i.name === 'PY3' : undefined;
}

/** Static value of a condition; undefined when it depends on the run. */
export function staticTruth(cx: StaticContext, n: PyNode, depth = 0): boolean | undefined {
  const text = cx.text;
  const t = text.slice(n.start, n.end);
  switch (n.type) {
    // a literal is static where it is written, not through a name (`DEBUG = True` is a setting)
    case 'true': return depth ? undefined : true;
    case 'false': case 'none': return depth ? undefined : false;
    case 'integer': return depth ? undefined : t !== '0';
    case 'identifier': {
      if (t === 'TYPE_CHECKING') return true;
      const r = cx.table.readByNode.get(n);
      const sc = r ? resolveScope(r.scope, r.name) : null;
      const bs = sc?.bindings.get(r!.name);
      if (bs?.length !== 1) return undefined;
      if (bs[0]!.kind === 'import') return sixFlag(cx, n, t);
      // a name bound once to a static test (`PY2 = sys.version_info[0] == 2`)
      const sole = depth < 4 ? soleAssignment(sc!, r!.name) : undefined;
      return sole ? staticTruth(cx, sole.value, depth + 1) : undefined;
    }
    case 'attribute':
      if (t === 'typing.TYPE_CHECKING' || t === 't.TYPE_CHECKING') return true;
      return sixFlag(cx, n, t);
    case 'parenthesized_expression': {
      const inner = named(n)[0];
      return inner ? staticTruth(cx, inner, depth) : undefined;
    }
    case 'comparison_operator': {
      const kids = named(n);
      const ops = n.children.filter((c) => !c.named).map((c) => c.type);
      if (kids.length !== 2 || !ops.length) return undefined;
      const [l, r] = [kids[0]!, kids[1]!];
      const lt = text.slice(l.start, l.end).replace(/\s+/g, '');
      const op = ops.join(' ');
      if (lt === 'sys.platform' && r.type === 'string') {
        const v = text.slice(r.start + 1, r.end - 1);
        if (op === '==') return v === 'linux';
        if (op === '!=') return v !== 'linux';
      }
      if (VERSION_TUPLE.test(lt) && r.type === 'tuple') {
        const nums = named(r).map((k) => (k.type === 'integer' ? Number(text.slice(k.start, k.end)) : NaN));
        if (!nums.length || nums.some(Number.isNaN)) return undefined;
        let cmp = 0;
        for (let i = 0; i < nums.length && cmp === 0; i++) cmp = (VERSION[i] ?? 0) - nums[i]!;
        // equal on (3, 11): the running version goes on (3.11.7 > (3, 11)) with a micro version not decided here
        if (cmp === 0) {
          if (nums.length > 2 || !/^sys\.version_info$/.test(lt)) return undefined;
          cmp = 1;
        }
        return op === '==' || op === '!=' ? undefined : compare(cmp, op);
      }
      if (VERSION_MAJOR.test(lt) && r.type === 'integer') return compare(VERSION[0]! - Number(text.slice(r.start, r.end)), op);
      // `bytes is str`: only Python 2's str is its bytes
      if ((op === 'is' || op === 'is not' || op === '==' || op === '!=') && l.type === 'identifier' && r.type === 'identifier') {
        const pair = [lt, text.slice(r.start, r.end)].sort().join(' ');
        if (pair === 'bytes str' && cx.resolution(l) === 'builtin' && cx.resolution(r) === 'builtin') return op === 'is not' || op === '!=';
      }
      return undefined;
    }
    case 'call':
      if (/^sys\.platform\.startswith\(\s*(['"])([^'"]*)\1\s*\)$/.test(t)) return 'linux'.startsWith(RegExp.$2);
      return undefined;
  }
  return undefined;
}
