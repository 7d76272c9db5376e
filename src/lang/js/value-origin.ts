/**
 * Where a string value of a JavaScript verifier comes from (the counterpart of
 * `lang/python/value-origin.ts`): the literals it can be, when the code fixes them — a literal, a
 * choice between literals, a `const` holding one, a string method of one, or the output of a program
 * the code hands to a call (`execSync(script)`) that prints nothing but literal `echo`s.
 */
import type { AnyNode } from 'acorn';
import type { JsScopes } from './scope.js';
import { propName } from './nodes.js';
import { INTERPOLATION, shellLiteralOutputs } from '../shell-output.js';

const MAX_DOMAIN = 16;

const MAPPERS: Record<string, (s: string) => string> = {
  toString: (s: string) => s,
  toLowerCase: (s) => s.toLowerCase(),
  toUpperCase: (s) => s.toUpperCase(),
  trim: (s) => s.trim(),
  trimEnd: (s) => s.trimEnd(),
  trimStart: (s) => s.trimStart(),
};

function union(x: string[] | undefined, y: string[] | undefined): string[] | undefined {
  if (!x || !y) return undefined;
  const u = [...new Set([...x, ...y])];
  return u.length <= MAX_DOMAIN ? u : undefined;
}

/** A string literal or a template (each `${…}` as `\uE000`). */
function templateText(e: AnyNode | undefined): string | undefined {
  if (!e) return undefined;
  if (e.type === 'Literal') return typeof e.value === 'string' ? e.value : undefined;
  if (e.type === 'TemplateLiteral') return e.quasis.map((q) => q.value.cooked ?? q.value.raw).join(INTERPOLATION);
  return undefined;
}

/** Every literal the expression can be, within a small bound; undefined when any value is open. */
export function jsClosedStrings(e: AnyNode | undefined, sc: JsScopes, depth = 0): string[] | undefined {
  if (!e || depth > 6) return undefined;
  switch (e.type) {
    case 'Literal':
      return typeof e.value === 'string' ? [e.value] : undefined;
    case 'TemplateLiteral':
      return e.expressions.length === 0 ? [e.quasis.map((q) => q.value.cooked ?? q.value.raw).join('')] : undefined;
    case 'ConditionalExpression':
      return union(jsClosedStrings(e.consequent, sc, depth + 1), jsClosedStrings(e.alternate, sc, depth + 1));
    case 'LogicalExpression':
      return e.operator === '&&' ? undefined : union(jsClosedStrings(e.left, sc, depth + 1), jsClosedStrings(e.right, sc, depth + 1));
    case 'AwaitExpression':
      return jsClosedStrings(e.argument, sc, depth + 1);
    case 'ChainExpression':
      return jsClosedStrings(e.expression, sc, depth + 1);
    case 'Identifier': {
      const b = sc.resolve(e);
      if (b?.kind !== 'const') return undefined;
      return b.init ? jsClosedStrings(b.init, sc, depth + 1) : jsProgramOutput(e, sc);
    }
    case 'CallExpression': {
      const c = e.callee;
      const m = c.type === 'MemberExpression' ? propName(c) : undefined;
      const map = m !== undefined ? MAPPERS[m] : undefined;
      if (map && c.type === 'MemberExpression' && c.object.type !== 'Super') {
        return (jsClosedStrings(c.object, sc, depth + 1) ?? jsProgramOutput(c.object, sc))?.map(map);
      }
      if (c.type === 'Identifier' && c.name === 'String' && e.arguments[0]?.type !== 'SpreadElement') return jsClosedStrings(e.arguments[0], sc, depth + 1);
      return jsProgramOutput(e, sc);
    }
    case 'MemberExpression':
      return jsProgramOutput(e, sc);
    default:
      return undefined;
  }
}

/**
 * The output of a program handed to a call, when it prints only literals: `e` is the call or a property
 * of its result (`spawnSync(…).stdout`), directly or through a `const`; one argument (or an item of an
 * array argument) is a shell script read by `shellLiteralOutputs`.
 */
function jsProgramOutput(e0: AnyNode, sc: JsScopes): string[] | undefined {
  let e: AnyNode = e0;
  for (let i = 0; i < 4; i++) {
    if (e.type === 'MemberExpression' && e.object.type !== 'Super') e = e.object;
    else if (e.type === 'AwaitExpression') e = e.argument;
    else if (e.type === 'Identifier') {
      const b = sc.resolve(e);
      // `const out = run(…)`, or a property destructured from it (`const { stdout } = run(…)`)
      const init = b?.kind !== 'const' ? undefined : b.init ?? (b.decl.type === 'VariableDeclarator' && b.decl.id.type === 'ObjectPattern' ? b.decl.init : undefined);
      if (!init) return undefined;
      e = init;
    } else break;
  }
  if (e.type !== 'CallExpression') return undefined;
  const args = e.arguments.flatMap((x) => (x.type === 'ArrayExpression' ? x.elements : [x]));
  for (const arg of args) {
    if (!arg || arg.type === 'SpreadElement') continue;
    let v: AnyNode = arg;
    if (v.type === 'Identifier') {
      const b = sc.resolve(v);
      if (b?.kind !== 'const' || !b.init) continue;
      v = b.init;
    }
    const text = templateText(v);
    if (text === undefined || !/\b(?:echo|printf)\b/.test(text)) continue;
    const outs = shellLiteralOutputs(text);
    if (outs) return outs;
  }
  return undefined;
}
