/**
 * swallowed-error-verdict — a broad `except` that turns every error into a constant verdict: the
 * bugs of the verifier itself (a NameError, a typo) become a pass or a fail.
 *
 * Verdicts are what a verdict function returns to the grader: `True`/`False`, `0`/`1`/`0.0`/`1.0`,
 * `(False, msg)`, `{"pass": False}`, or the argument of a decorator factory (`error_factory(False)`);
 * the same shapes in JS/TS (`false`, `0`, `[false, msg]`, `{ pass: false }`), with result-object keys
 * learned from what the entrypoint returns (src/suites/verdict-shape.ts, one notion for both languages).
 * A verdict function is a function a task entry is bound to, or one it hands its verdict to
 * (`return helper(...)`); handlers in set-up code, retries and predicates (`is_int`) are not on a
 * verdict path and are not reported. Without any bound entry (verifier code linted alone), every
 * function that returns its result from inside the `try` counts.
 *
 * JS/TS: a `catch` (every `catch` is broad unless it rethrows) in a verdict function of an eval
 * module a task names (its default or named export, and the same-file functions whose result it
 * returns); without such a task, the module's exported functions and what they return.
 */
import { defineRule, type PythonVisitor } from '../../src/contract/rule.js';
import type { FunctionInfo, HandlerInfo } from '../../src/lang/python/types.js';
import type { ControlCaseRequest } from '../../src/core/types.js';
import { expectedParams } from '../../src/suites/expected-input.js';
import { expectedLoadIn } from './expected-load.js';
import { field, named, nextNamed, unparen, walk, type PyNode } from '../../src/lang/python/tree.js';
import type { Project } from '../../src/contract/project.js';
import type { PythonAnalysis } from '../../src/lang/python/types.js';
import { isVerdictFunction, jsVerdictScope, pythonVerdictShapes, verdictFunctions } from '../../src/suites/verdict.js';
import { jsConst, pyConst, verdictTruth } from '../../src/suites/verdict-shape.js';
import { carriesCaught, findOwn, isJsFunction, programOf } from '../../src/lang/js/index.js';
import type { AnyNode, CatchClause } from 'acorn';
import { forEachChild } from '../../src/lang/js/nodes.js';

type Msg = 'swallowed' | 'fallthrough' | 'jsSwallowed' | 'jsFallthrough' | 'expectedLoad';

/** acorn's union of ESTree node types: narrowing on `type` gives each node its fields. */
type AnyJs = AnyNode;
type PyCtx = Parameters<PythonVisitor<Msg>>[1];

/** Handlers (file\0start) of swallowing decorators applied to verdict functions. */
const decoratorHandlers = new WeakMap<Project, Set<string>>();
function verdictDecoratorHandlers(project: Project): Set<string> {
  let s = decoratorHandlers.get(project);
  if (s) return s;
  s = new Set();
  for (const k of verdictFunctions(project) ?? []) {
    const [file, qualname] = k.split('\0') as [string, string];
    const a = project.python.analysis(file);
    const fn = a?.functionByQualname(qualname);
    const sw = fn ? a!.decoratorSwallow(fn) : undefined;
    if (sw) s.add(`${sw.file || file}\0${sw.handler.start}`);
  }
  decoratorHandlers.set(project, s);
  return s;
}

/** The try body returns a value: the verdict is computed under the handler. */
function bodyReturns(tryNode: PyNode): boolean {
  const body = field(tryNode, 'body');
  let found = false;
  if (body)
    walk(body, (n) => {
      if (found || n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
      if (n.type === 'return_statement' && named(n).length) found = true;
      return undefined;
    });
  return found;
}

/** Calls that only read the application's state: an HTTP request, its body parsed, a file read. */
const STATE_READ = /^(requests|httpx|urllib\.request|aiohttp)\.|^(json\.loads?|open)$/;
const STATE_METHODS = new Set(['json', 'read', 'raise_for_status', 'text', 'decode']);

/**
 * The `try` only loads the agent's state and fails fast: every call in it reads state (an HTTP
 * request, its parse, a file read) and every return in it is a failing constant. Failing to load the
 * agent's output is a legitimate failure (nothing of the verifier's own can raise there).
 */
function onlyLoadsState(a: PythonAnalysis, tryNode: PyNode, shapes: ReturnType<typeof pythonVerdictShapes>): boolean {
  const body = field(tryNode, 'body');
  if (!body) return false;
  let ok = true;
  walk(body, (n) => {
    if (!ok || n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return false;
    if (n.type === 'call') {
      const c = a.call(n);
      const q = c ? a.qualifiedName(c.fn) ?? c.calleeText : '';
      if (!c || !(STATE_READ.test(q) || (c.receiver && STATE_METHODS.has(c.method)))) ok = false;
    } else if (n.type === 'return_statement') {
      const v = named(n)[0];
      if (!v || verdictTruth(pyConst(a, unparen(v)), shapes) !== false) ok = false;
    }
    return undefined;
  });
  return ok;
}

/** `return X` right after the `try` statement (a handler that logs and falls through reaches it). */
function returnAfter(tryNode: PyNode): PyNode | undefined {
  const next = nextNamed(tryNode);
  return next?.type === 'return_statement' ? named(next)[0] : undefined;
}

/** A result object with a truthy `error` field beside the verdict (a literal message, a flag). */
function errorField(obj: AnyJs): boolean {
  if (obj.type !== 'ObjectExpression') return false;
  return obj.properties.some((p) => {
    if (p.type !== 'Property' || p.computed) return false;
    const k = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : '';
    if (k !== 'error') return false;
    const v = p.value;
    return v.type === 'Literal' ? !!v.value : v.type === 'TemplateLiteral' || v.type === 'ObjectExpression';
  });
}

/** The handler passes the caught error (or what it reads from it) to a call of its own statements (`logger.error({ … error.message … })`). */
function logsCaught(handler: CatchClause): boolean {
  const param = handler.param?.type === 'Identifier' ? handler.param.name : undefined;
  if (!param) return false;
  const mentions = (n: AnyJs): boolean => {
    let hit = false;
    const rec = (k: AnyJs): void => {
      if (hit) return;
      if (k.type === 'Identifier' && k.name === param) { hit = true; return; }
      forEachChild(k, rec);
    };
    rec(n);
    return hit;
  };
  return handler.body.body.some((st) => st.type === 'ExpressionStatement' && st.expression.type === 'CallExpression' && st.expression.arguments.some((a) => mentions(a)));
}

export default defineRule<Msg>({
  meta: {
    id: 'swallowed-error-verdict',
    description: 'A broad `except` (bare, `Exception`, `BaseException`) on a verdict path returns — or logs and falls through to — a constant verdict; any handler that fails the agent when loading the task\'s expected input (gold file, options) fails.',
    defaultSeverity: 'warn',
    layers: ['python', 'javascript'],
    languages: ['python', 'javascript', 'typescript'],
    messages: {
      expectedLoad: {
        what: 'This `{{clause}}` turns a failure to load {{what}} (`{{load}}`) into the verdict `{{verdict}}`.',
        why: 'A missing or broken gold file, or a task option the code cannot use, then fails every agent on this task with no error: the benchmark reports a fault in its own data as the agents\' failure.',
        fix: 'Load the expected input outside the `try` (or re-raise its errors) so it surfaces as an error, and keep the handler for the agent\'s output only.',
      },
      jsSwallowed: {
        what: 'This `catch` turns every exception thrown while the verdict is computed into the verdict `{{verdict}}`.',
        why: 'Bugs in the verifier itself (a ReferenceError, a TypeError from a typo) then look like an agent that {{looks}}, for every agent and with no trace.',
        fix: 'Catch only the errors a missing or malformed state raises (test `err instanceof SyntaxError` or `err.code`) and rethrow the rest.',
      },
      jsFallthrough: {
        what: 'This `catch` only logs, then falls through to `return {{verdict}}` after the `try`.',
        why: 'Every exception in the check, including bugs in the verifier itself (a ReferenceError, a TypeError from a typo), becomes the verdict `{{verdict}}`, so a broken check looks like an agent that {{looks}}.',
        fix: 'Catch only the errors a missing or malformed state raises (test `err instanceof SyntaxError` or `err.code`) and rethrow the rest.',
      },
      swallowed: {
        what: 'This `{{clause}}` turns every exception into the verdict `{{verdict}}`.',
        why: 'Bugs in the verifier such as a NameError or a typo become that verdict too, so a broken check looks like an agent that {{looks}}.',
        fix: 'Catch only the errors a missing or malformed state raises (e.g. `KeyError`, `ValueError`, `requests.RequestException`) and let the rest surface.',
      },
      fallthrough: {
        what: 'This `{{clause}}` only logs, then falls through to `return {{verdict}}`.',
        why: 'Every exception in the check — including bugs in the verifier such as a NameError or a typo — becomes the verdict `{{verdict}}`, so a broken check looks like an agent that {{looks}}.',
        fix: 'Catch only the errors a missing or malformed state raises and let the rest surface.',
      },
    },
    docs: {
      whatItDoes:
        'Flags `except:`, `except Exception` and `except BaseException` handlers on a verdict path that do not re-raise and return a constant verdict — `True`/`False`, `0`/`1`/`0.0`, `(False, msg)`, `{"pass": False}` — or log and fall through to `return <verdict>` after the `try`, when the `try` computes the verdict (returns from inside it). Also the parameter of a decorator factory such as `error_factory(default)` applied to a verdict function. A verdict function is one a task entry is bound to or one whose result it returns; set-up helpers, retries and predicates are not reported. In JavaScript and TypeScript verifiers, flags a `catch` with no `throw` in it that returns such a constant verdict — `false`, `0`, `[false, msg]`, `{ pass: false }`, `{ verdict: \'fail\' }` — or only logs and falls through to `return <verdict>` (a returned result object that carries the caught error beside the verdict, `{ _success: false, error }` or `message: err.message`, records it and is not reported; so does a handler that logs the caught error and returns a truthy `error` field beside the verdict, `{ _success: false, error: \'extraction failed\' }`), when the `try` returns the verdict and the function is the eval module\'s export a task names (or a same-file function whose result it returns). Result-object keys are learned from what the entrypoint returns: an eval module that returns `{ _success: … }` makes `return { _success: false }` a verdict. Separately (`expectedLoad`), any handler — broad or narrow — that returns or falls through to a failing verdict when its `try` loads the task\'s expected input: a parameter the suite routes the expected value or the options to (OSWorld family: a metric\'s second positional parameter when its task has an `expected` getter, and its `**options`; the first parameter, the agent\'s output, is not it), or a file the verifier reads from its own folder (a path of literals, `__file__` and module constants). Loading the agent\'s output and failing is a legitimate 0 and is not reported this way.',
      why: 'In the audited benchmark every `_eval_*` method was wrapped in `error_factory(False)`: the NameError of VER-001 was invisible for as long as the benchmark existed, and every agent failed those tasks. OSWorld-family metrics do the same with `except Exception: logger.info(...); return 0`, often around `Document(result); Document(expected)`: a broken gold file scores every agent 0.',
    },
    confirm: {
      oracle: 'swallowed-error-verdict',
      description: 'Calls the function (for a decorator factory, a function it decorates) on witnesses: an exception raised in the guarded code that ends in a returned verdict confirms; for a handler around the expected input\'s load, with the agent\'s output a readable file and the expected input missing or broken.',
    },
  },
  create(ctx) {
    return {
      javascript: {
        CatchClause(node, c, ancestors) {
          const tryNode = ancestors[ancestors.length - 1];
          const program = programOf(ancestors);
          if (!program || tryNode?.type !== 'TryStatement' || tryNode.handler !== node) return;
          const fn = [...ancestors].reverse().find(isJsFunction);
          if (!fn) return;
          const scope = jsVerdictScope(ctx.project, c.unit.file.path, program);
          // without entries naming a JS/TS module: the module's exported functions and what they return, else any function
          if ((scope.known || scope.functions.size) && !scope.functions.has(fn)) return;
          const body = node.body;
          // a rethrow anywhere in the handler narrows it (`if (!(e instanceof SyntaxError)) throw e`)
          if (findOwn(body, (n) => n.type === 'ThrowStatement')) return;
          // the `try` computes the verdict: it returns a value
          if (!findOwn(tryNode.block, (n) => n.type === 'ReturnStatement' && !!n.argument)) return;
          let messageId: Msg = 'jsSwallowed';
          let ret = findOwn(body, (n) => n.type === 'ReturnStatement')?.argument;
          if (!ret) {
            if (findOwn(body, (n) => n.type === 'ReturnStatement')) return;
            const parent = ancestors[ancestors.length - 2];
            const list = (parent?.type === 'BlockStatement' || parent?.type === 'Program' ? parent.body : parent?.type === 'SwitchCase' ? parent.consequent : undefined) as AnyJs[] | undefined;
            const next = list?.[list.indexOf(tryNode) + 1];
            if (next?.type !== 'ReturnStatement' || !next.argument) return;
            ret = next.argument;
            messageId = 'jsFallthrough';
          }
          const truth = verdictTruth(jsConst(ret), scope.shapes);
          if (truth === undefined) return;
          // a result object that carries the caught error beside the verdict (`error: err`,
          // `message: err.message`) records what went wrong: the run's result tells the error apart
          if (messageId === 'jsSwallowed' && ret.type === 'ObjectExpression' && carriesCaught(node, ret)) return;
          // or logs the caught error and marks the result as an error (`error: "extraction failed"`): the log
          // keeps what went wrong and the result's error field tells the run apart from an agent's failure
          if (messageId === 'jsSwallowed' && ret.type === 'ObjectExpression' && errorField(ret) && logsCaught(node)) return;
          const verdict = c.text.slice(ret!.start, ret!.end).replace(/\s+/g, ' ');
          c.report({ messageId, data: { verdict: verdict.length > 60 ? `${verdict.slice(0, 57)}…` : verdict, looks: truth ? 'succeeded' : 'failed' }, at: { start: node.start, end: body.start } });
        },
      },
      python: {
        except_clause(h, c) {
          const a = c.python;
          const tryNode = h.parent;
          if (!tryNode || tryNode.type !== 'try_statement') return;
          const info = a.handlerInfo(tryNode, h);
          if (info.reraises) return;
          if (expectedLoadFinding(h, tryNode, info, c)) return;
          const broad = info.types === null || info.types.some((t) => t === 'Exception' || t === 'BaseException');
          if (!broad) return;
          const file = a.path;
          const known = verdictFunctions(ctx.project) !== undefined;
          const fn = a.functionAt(h);
          let messageId: Msg = 'swallowed';
          let ret = info.returns ? unparen(info.returns) : undefined;
          if (!ret) {
            ret = returnAfter(tryNode);
            messageId = 'fallthrough';
          }
          if (!ret) return;
          const text = a.src(ret);
          let verdict: string | undefined;
          let truth: boolean | undefined;
          if (messageId === 'swallowed' && ret.type === 'identifier') {
            // a parameter of an enclosing function (the decorator factory's `default`)
            let scope = fn?.scope.parent ?? null;
            while (scope && !verdict) {
              if (scope.params.includes(text)) verdict = text;
              scope = scope.parent;
            }
            if (!verdict) return;
            if (known && !verdictDecoratorHandlers(ctx.project).has(`${file}\0${h.start}`)) return;
          } else {
            truth = verdictTruth(pyConst(a, ret), pythonVerdictShapes(ctx.project));
            if (truth === undefined || !bodyReturns(tryNode)) return;
            if (truth === false && onlyLoadsState(a, tryNode, pythonVerdictShapes(ctx.project))) return;
            if (known && !(fn && isVerdictFunction(ctx.project, file, fn))) return;
            verdict = text;
          }
          const clause = a.src(h).split('\n')[0]!.replace(/:\s*(#.*)?$/, '').trim();
          const control = ret.type === 'identifier' && messageId === 'swallowed' ? decoratedControl(ctx.project, file, h) : fn ? tryControl(a, fn, tryNode) : undefined;
          c.report({
            messageId,
            data: { clause, verdict, looks: truth === true ? 'succeeded' : 'failed' },
            at: { start: h.start, end: headerEnd(c.text, h) ?? h.start + clause.length },
            ...(control ? { control } : {}),
          });
        },
      },
    };
  },
});

/** The control case of a handler in the function itself: call the function, look for an exception in the `try`. */
function tryControl(a: PythonAnalysis, fn: FunctionInfo, tryNode: PyNode): ControlCaseRequest {
  const body = field(tryNode, 'body') ?? tryNode;
  return { oracle: 'swallowed-error-verdict', shape: 'swallowed', file: a.path, line: a.line(body), qualname: fn.qualname, tryFrom: a.line(body), tryTo: a.line({ type: body.type, start: body.end, end: body.end }) };
}

/** The control case of a decorator factory's handler: call a function it decorates (a verdict function first),
 *  look for an exception in that function's body. */
function decoratedControl(project: Project, file: string, h: PyNode): ControlCaseRequest | undefined {
  const known = [...(verdictFunctions(project) ?? [])].map((k) => k.split('\0') as [string, string]);
  const candidates = known.length ? known : project.python.files().flatMap((f) => (project.python.analysis(f)?.functions() ?? []).map((fn) => [f, fn.qualname] as [string, string]));
  for (const [f, q] of candidates) {
    const a = project.python.analysis(f);
    const fn = a?.functionByQualname(q);
    const sw = fn ? a!.decoratorSwallow(fn) : undefined;
    if (!a || !fn || !sw || (sw.file || f) !== file || sw.handler.start !== h.start) continue;
    const body = field(fn.node, 'body') ?? fn.node;
    return { oracle: 'swallowed-error-verdict', shape: 'swallowed', file: f, line: a.line(body), qualname: fn.qualname, tryFrom: a.line(body), tryTo: a.line({ type: body.type, start: body.end, end: body.end }) };
  }
  return undefined;
}

/** The `try` loads the task's expected input and the handler (any type) fails the agent: reported as
 *  `expectedLoad` (instead of the broad-handler messages), with a control case. */
function expectedLoadFinding(h: PyNode, tryNode: PyNode, info: HandlerInfo, c: PyCtx): boolean {
  const a = c.python;
  const fn = a.functionAt(h);
  const body = field(tryNode, 'body');
  if (!fn || !body) return false;
  const known = verdictFunctions(c.project) !== undefined;
  if (known && !isVerdictFunction(c.project, a.path, fn)) return false;
  const params = expectedParams(c.project, a.path, fn);
  const load = expectedLoadIn(a, body, params);
  if (!load) return false;
  const ret = info.returns ? unparen(info.returns) : handlerReturns(h) ? undefined : returnAfter(tryNode);
  if (!ret || verdictTruth(pyConst(a, ret), pythonVerdictShapes(c.project)) !== false) return false;
  const clause = a.src(h).split('\n')[0]!.replace(/:\s*(#.*)?$/, '').trim();
  const own = fn.classNode ? fn.params.slice(1) : fn.params;
  const loadText = a.src(load.call).replace(/\s+/g, ' ');
  c.report({
    messageId: 'expectedLoad',
    data: { clause, what: load.what, load: loadText.length > 50 ? `${loadText.slice(0, 47)}...` : loadText, verdict: a.src(ret) },
    at: { start: h.start, end: headerEnd(c.text, h) ?? h.start + clause.length },
    control: {
      oracle: 'swallowed-error-verdict',
      shape: 'expectedLoad',
      file: a.path,
      line: a.line(h),
      qualname: fn.qualname,
      loadLine: a.line(load.call),
      expected: load.param && load.param !== params?.options ? own.indexOf(load.param) : -1,
      agent: params?.agent.size ? own.indexOf([...params.agent][0]!) : -1,
    },
  });
  return true;
}

/** The handler has a `return` of its own (then it does not fall through). */
function handlerReturns(h: PyNode): boolean {
  let hit = false;
  walk(h, (k) => {
    if (hit || k.type === 'function_definition' || k.type === 'lambda') return false;
    if (k.type === 'return_statement') hit = true;
    return undefined;
  });
  return hit;
}

/** End of an except clause's header, its `:` included: the first `:` after the header's last token (the
 *  tree keeps no `:` token of its own; only spaces, a line continuation or a bracket can come between). */
function headerEnd(text: string, h: PyNode): number | undefined {
  const body = h.children.find((k) => k.type === 'block');
  let last: PyNode | undefined;
  for (const k of h.children) if (k !== body && k.type !== 'comment' && (!body || k.end <= body.start)) last = k;
  if (!last) return undefined;
  const colon = text.indexOf(':', last.end);
  return colon >= 0 && (!body || colon < body.start) ? colon + 1 : undefined;
}
