/**
 * unbound-name — a name read on a path where it was never bound (VER-001).
 * Python: `.py` verifier files (definite assignment per function) and Python lambdas embedded in
 * task JSON (names that are neither parameters, builtins nor globals of the module that evals them).
 * (A `javascript` visitor can be added next to `python` below.)
 */
import { defineRule } from '../../src/contract/rule.js';
import type { PyNode, PythonAnalysis, UnboundRead } from '../../src/lang/python/types.js';
import { jsScopes, swallowingCatch, programOf } from '../../src/lang/js/index.js';
import { boundForEveryCaller, type CallerContext } from '../../src/lang/python/caller-guards.js';
import { boundWhenLoopRuns } from './loop-count.js';
import { boundByAttributeRead } from './attribute-read.js';
import type { Project } from '../../src/contract/project.js';

type Msg = 'undefined' | 'unbound' | 'maybe' | 'swallowed' | 'embedded' | 'jsUndefined' | 'jsSwallowed';
interface Opts {
  /** Extra names an embedded lambda (and a JS module) may use. */
  allowedGlobals: string[];
}

const KIND_TEXT: Record<UnboundRead['kind'], string> = {
  undefined: 'is bound nowhere in scope',
  unbound: 'is read before it is bound on every path',
  maybe: 'is unbound on some path that reaches this read',
};

function allowedGlobals(python: PythonAnalysis | undefined, configured: ReadonlySet<string>): Set<string> {
  const out = new Set<string>(configured);
  if (python) for (const n of python.moduleNames()) out.add(n);
  return out;
}

/** The analysis' view of who calls a function: the project's Python, and the functions task entries route to. */
function callerContext(project: Project): CallerContext {
  let routed: Set<string> | undefined;
  return {
    project: project.python,
    boundByTask(file, qualname) {
      routed ??= new Set(project.suites.flatMap((s) => s.tasks.flatMap((t) => t.entries.flatMap((e) => (e.binding ? [`${e.binding.file}\0${e.binding.qualname}`] : [])))));
      return routed.has(`${file}\0${qualname}`);
    },
  };
}

function insideError(n: PyNode): boolean {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'ERROR') return true;
  return false;
}

export default defineRule<Msg, Opts>({
  meta: {
    id: 'unbound-name',
    description: 'A name read on a path where it was never bound: NameError, often swallowed into a verdict.',
    // warning by default; each finding is an error when the NameError is swallowed into a verdict
    defaultSeverity: 'warn',
    otherSeverity: { severity: 'error', when: 'an enclosing handler turns the NameError into a verdict' },
    layers: ['python', 'javascript'],
    languages: ['python', 'json', 'javascript'],
    messages: {
      undefined: {
        what: '`{{name}}` {{how}}, so this line raises NameError on every run.',
        why: 'The check never evaluates what the task asks.',
        fix: 'Bind the name (or fix the typo) and add a regression task.',
      },
      unbound: {
        what: '`{{name}}` {{how}}, so this line raises {{error}}.',
        why: 'The check never evaluates what the task asks.',
        fix: 'Bind `{{name}}` on every path before the read.',
      },
      maybe: {
        what: '`{{name}}` {{how}}.',
        why: 'On that path the check raises NameError instead of grading.',
        fix: 'Bind `{{name}}` on every path (or return a failed verdict explicitly).',
      },
      swallowed: {
        what: '`{{name}}` {{how}}.',
        why: 'The NameError is swallowed by {{by}} ({{where}}) and becomes the verdict `{{verdict}}`, so the check silently reports a result it never computed.',
        fix: 'Bind `{{name}}` on every path and let programming errors surface.',
      },
      jsUndefined: {
        what: '`{{name}}` is declared nowhere in this module and is not a JavaScript, Node.js or browser global.',
        why: 'This line throws ReferenceError on every run, so the check never grades.',
        fix: 'Declare or import `{{name}}` (or fix the typo).',
      },
      jsSwallowed: {
        what: '`{{name}}` is declared nowhere in this module and is not a global.',
        why: 'The ReferenceError is caught by the `catch` at line {{line}}, which returns `{{verdict}}`, so the check silently reports a result it never computed.',
        fix: 'Declare or import `{{name}}` and let programming errors surface.',
      },
      embedded: {
        what: '`{{name}}` in this lambda is neither a parameter, a builtin nor a global of the verifier that evaluates it.',
        why: 'The verifier raises NameError when it calls the lambda, so the check fails (or is swallowed into a verdict) for every agent.',
        fix: 'Use the lambda\'s parameters (or add the module to `allowedGlobals`).',
      },
    },
    docs: {
      whatItDoes: 'Finds reads of names that are unbound on every path, possibly unbound on some path, or bound nowhere — per function, over if/elif/else, loops with else, try/except/else/finally, with, match and early exits — and in lambdas embedded in task JSON. A name a `try` binds from an attribute read (`task = env.task`) is bound in its handlers when that read cannot raise: every value the object can have is an instance of a project class whose `__init__` sets `self.task` in its straight-line body (no property, `__getattr__`, `__new__` or `del` of it on the way), followed through local assignments, the returns of a project function and the assignments of a module global, with None ruled out by an `if env is None: return` before the `try`. Tests that agree along every run are correlated: the platform, a module constant, `hasattr` of one object, and `p is None` / `p is not None` of a parameter its function never rebinds (no assignment, `del` or `nonlocal` rebinding), so a name bound under `if expected is not None:` and read under the same test later is bound. A flag bound only by plain assignments (two to eight, one at least a literal: a boolean, None, an integer or a plain one-line string) and tested by a condition is followed through the joins of the paths that set it (`if`, `try`, `match`, the exits of a loop not inside another): a name bound where the flag was set is bound under a later `if found:`, `if not has_yaml: return`, `if result is not None:` or `if mode == "fast":` (`has_yaml = True` at the end of a `try` body and `= False` in its handler; `found = True` beside `match = row`; `result = None` … `result = f()`); a module flag is not followed when the module writes its namespace by name, has a star import, names an attribute of that name or reaches a module object (setattr, __dict__, vars, exec, globals, sys.modules, import_module); another file writing it (`import check; check.flag = True`) is not seen, as for module constants. Tests of the interpreter (`sys.version_info[0] < 3`, `sys.version_info >= (3, 8)`, the `PY2` flag of six, `bytes is str`, a name bound once to one of them) are decided for Python 3 on Linux, so Python 2 branches are neither read nor bound; a read of a module or builtin name in a `try` whose first handler of NameError names it (`try: unicode except NameError: unicode = str`) is a test of whether the name exists, and after it the name exists (a local of the function caught that way is still reported: that is the swallowed error). A parameter its function never rebinds, whose default or annotation says it is a boolean, integer or string, is a correlated test too (`if deep:` … `if deep:`, `draft == 0`). A module that writes its own namespace by name (`globals().update(…)`, `globals()[k] = v`, `setattr(sys.modules[__name__], …)`, `exec(code)` at module level) is read like one with a star import: a name no statement binds may exist, and is not reported as bound nowhere. A finding is an error when an enclosing handler or decorator turns the NameError into a verdict (the benchmark silently lies), a warning otherwise (the verifier crashes loudly); a severity set in the config applies to all.',
      why: 'A verifier that raises NameError never grades the task. Wrapped in an exception-swallowing decorator (as in VER-001), the error silently becomes `False`: every agent fails the task and nobody notices.',
      references: ['VER-001'],
    },
    confirm: {
      oracle: 'unbound-name',
      description: 'Runs the flagged function on witness entries under a tracer and confirms when NameError/UnboundLocalError is raised at the flagged line, even if a decorator swallows it.',
    },
    optionsSchema: {
      type: 'object',
      properties: { allowedGlobals: { type: 'array', items: { type: 'string' }, description: 'Extra names an embedded lambda may use (globals of the evaluating module).' } },
      additionalProperties: false,
    },
    defaultOptions: { allowedGlobals: [] },
  },
  create(ctx) {
    const allowed = new Set(ctx.options.allowedGlobals);
    let callers: CallerContext | undefined;
    return {
      javascript: {
        Identifier(node, c, ancestors) {
          const program = programOf(ancestors);
          if (!program || !jsScopes(program).unboundIds.has(node)) return;
          // a classic <script> of an HTML page: a sibling script of the page may declare the name
          if (c.project.pageScripts?.has(c.unit.file.path)) return;
          const name = node.name;
          if (allowed.has(name)) return;
          const sw = swallowingCatch(node, ancestors);
          if (sw) c.report({ messageId: 'jsSwallowed', data: { name, line: c.unit.file.source.positionAt(sw.catchStart).line, verdict: sw.verdict }, at: node, severity: 'error' });
          else c.report({ messageId: 'jsUndefined', data: { name }, at: node, group: name });
        },
      },
      python: {
        module(_node, c) {
          const a = c.python;
          const embedded = c.unit.embedded;
          if (embedded) {
            // code that does not parse is lambda-syntax's finding; its recovered tree has no reliable scopes
            if (a.ast.hasError) return;
            const binding = embedded.entry?.binding;
            const evaluator = binding ? c.project.python.analysis(binding.file) : undefined;
            const allowedHere = allowedGlobals(evaluator, allowed);
            for (const r of a.unboundReads()) {
              if (r.kind !== 'undefined' || allowedHere.has(r.name)) continue;
              // the verifier evals the lambda inside its own error handling: treat as swallowed
              c.report({ messageId: 'embedded', data: { name: r.name }, at: r.node, control: { oracle: 'unbound-name', name: r.name }, severity: 'error', group: `${embedded.ref.pointer}\0${r.name}` });
            }
            return;
          }
          for (const r of a.unboundReads()) {
            if (insideError(r.node)) continue;
            // bound under a test that every caller's argument satisfies (src/lang/python/caller-guards.ts)
            if (r.kind === 'maybe' && boundForEveryCaller(a, r, (callers ??= callerContext(c.project)))) continue;
            // bound inside `for … in range(P)` that every call runs at least once (loop-count.ts)
            if (r.kind === 'maybe' && boundWhenLoopRuns(a, r, c.project.python, (callers ??= callerContext(c.project)).boundByTask)) continue;
            // bound by a try's `x = obj.attr` that cannot raise: every instance obj can be has attr (attribute-read.ts)
            if (r.kind === 'maybe' && boundByAttributeRead(a, r, c.project.python)) continue;
            const how = KIND_TEXT[r.kind];
            // one name unbound in one function is one defect, however many lines read it
            const group = `${r.qualname}\0${r.name}`;
            const control = { oracle: 'unbound-name', file: a.path, line: a.line(r.node), qualname: r.qualname, name: r.name, kind: r.kind };
            // a function's local read before its binding raises UnboundLocalError; a module's or class body's, NameError
            const error = r.kind === 'unbound' && r.scope.kind === 'function' && r.scope.bindings.has(r.name) ? 'UnboundLocalError' : 'NameError';
            const sw = a.swallowedAt(r.node, error);
            if (sw && sw.verdict !== undefined) {
              const by = sw.kind === 'decorator' ? `the decorator \`@${sw.decorator}\`` : 'an enclosing `except` handler';
              const where = `${c.project.files.get(sw.file)?.relPath ?? 'line'}:${sw.line}`.replace(/^line:/, 'line ');
              c.report({
                messageId: 'swallowed',
                data: { name: r.name, how, by, where, verdict: sw.verdict },
                at: r.node,
                control: { ...control, swallowedBy: { file: sw.file, line: sw.line, kind: sw.kind } },
                severity: 'error',
                group,
              });
              continue;
            }
            c.report({ messageId: r.kind, data: { name: r.name, how, error }, at: r.node, control, group });
          }
        },
      },
    };
  },
});

