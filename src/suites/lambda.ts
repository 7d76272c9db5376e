/**
 * Helpers over the tree-sitter tree of a Python lambda embedded in task JSON
 * (`key`/`find`/`pred`). Rules use them from their python-layer visitors;
 * the trees are a handful of nodes, so the small local scans here are cheap.
 */
import type { PyNode as Node } from '../lang/python/tree.js';

export interface LambdaParams {
  /** Positional parameter names in order (before `*`/`*args`). */
  positional: string[];
  /** How many positional parameters have no default. */
  required: number;
  /** `*args` present. */
  varargs: boolean;
  /** Keyword-only parameters without a default (cannot be filled positionally). */
  requiredKwOnly: string[];
  /** All parameter names (for scope checks). */
  names: string[];
}

/** The lambda a whole embedded unit evaluates to (module → expression_statement → [parenthesized] lambda), if it is exactly one. */
export function rootLambda(root: Node): Node | undefined {
  const stmts = root.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  if (stmts.length !== 1 || stmts[0]!.type !== 'expression_statement') return undefined;
  const exprs = stmts[0]!.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  if (exprs.length !== 1) return undefined;
  let e: Node | null = exprs[0]!;
  while (e && e.type === 'parenthesized_expression') e = e.namedChildren.find((c) => c !== null && c.type !== 'comment') ?? null;
  return e && e.type === 'lambda' ? e : undefined;
}

/** True when `node` is the unit's top-level lambda (not a lambda nested inside it). */
export function isRootLambda(node: Node): boolean {
  let p = node.parent;
  while (p && p.type === 'parenthesized_expression') p = p.parent;
  return !!p && p.type === 'expression_statement' && !!p.parent && p.parent.type === 'module';
}

export function lambdaParams(lambda: Node): LambdaParams {
  const out: LambdaParams = { positional: [], required: 0, varargs: false, requiredKwOnly: [], names: [] };
  const params = lambda.childForFieldName('parameters');
  if (!params) return out;
  let kwOnly = false;
  for (const c of params.namedChildren) {
    if (!c) continue;
    switch (c.type) {
      case 'identifier':
        out.names.push(c.text);
        if (kwOnly) out.requiredKwOnly.push(c.text);
        else {
          out.positional.push(c.text);
          out.required++;
        }
        break;
      case 'default_parameter': {
        const name = c.childForFieldName('name')?.text ?? '';
        out.names.push(name);
        if (!kwOnly) out.positional.push(name);
        break;
      }
      case 'list_splat_pattern':
        out.varargs = true;
        kwOnly = true;
        out.names.push(c.namedChildren[0]?.text ?? '');
        break;
      case 'keyword_separator':
        kwOnly = true;
        break;
      case 'dictionary_splat_pattern':
        out.names.push(c.namedChildren[0]?.text ?? '');
        break;
      default:
        break;
    }
  }
  return out;
}

/** Can a call with `n` positional arguments bind these parameters? */
export function acceptsPositional(p: LambdaParams, n: number): boolean {
  if (p.requiredKwOnly.length > 0) return false;
  if (n < p.required) return false;
  return p.varargs || n <= p.positional.length;
}

/** Human text for a parameter list: "1 parameter (dump)", "no parameters", "2 to 3 parameters"… */
export function describeParams(p: LambdaParams): string {
  const names = p.positional.length ? ` (${p.positional.join(', ')}${p.varargs ? ', *…' : ''})` : '';
  if (p.requiredKwOnly.length) return `required keyword-only parameter${p.requiredKwOnly.length > 1 ? 's' : ''} ${p.requiredKwOnly.join(', ')}`;
  if (p.varargs) return `at least ${p.required} parameter${p.required === 1 ? '' : 's'}${names}`;
  const max = p.positional.length;
  if (max === 0) return 'no parameters';
  if (p.required === max) return `${max} parameter${max === 1 ? '' : 's'}${names}`;
  return `${p.required} to ${max} parameters${names}`;
}

/** Unwrap parentheses. */
export function unparen(n: Node | null): Node | null {
  let e = n;
  while (e && e.type === 'parenthesized_expression') e = e.namedChildren.find((c) => c !== null && c.type !== 'comment') ?? null;
  return e;
}

/** The enclosing root lambda's parameter names, when `node` is inside one. */
export function enclosingLambdaParams(node: Node): LambdaParams | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'lambda' && isRootLambda(p)) return lambdaParams(p);
  return undefined;
}

/** The anonymous operator tokens of a comparison (`in`, `not in`, `==`…). */
export { comparisonOperators } from '../lang/python/tree.js';

/**
 * Locate the first syntax problem in a small Python unit: an unbalanced
 * bracket (by a string-aware scan), else the innermost tree-sitter ERROR
 * node, else a MISSING node. Offsets are UTF-16 in `text`.
 */
export function firstSyntaxProblem(text: string, root: Node): { start: number; end: number; detail: string } | undefined {
  if (!root.hasError) return undefined;
  const stack: Array<{ ch: string; at: number }> = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      let j = i + q.length;
      while (j < text.length && !text.startsWith(q, j)) j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return { start: i, end: text.length, detail: 'unterminated string literal' };
      i = j + q.length - 1;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '(' || c === '[' || c === '{') stack.push({ ch: c, at: i });
    else if (c === ')' || c === ']' || c === '}') {
      const top = stack.pop();
      if (!top || top.ch !== pairs[c]) return { start: i, end: i + 1, detail: `unmatched '${c}'` };
    }
  }
  const open = stack[0];
  if (open) return { start: open.at, end: open.at + 1, detail: `'${open.ch}' was never closed` };
  let found: { start: number; end: number; detail: string } | undefined;
  const visit = (n: Node): boolean => {
    if (n.isMissing) {
      const s = n.startIndex;
      found = { start: Math.max(0, s - 1), end: Math.max(s, 1), detail: `missing '${n.type}'` };
      return true;
    }
    if (n.type === 'ERROR') {
      for (const c of n.children) if (c && (c.hasError || c.isMissing) && visit(c)) return true;
      const tok = n.text.trim().split(/\s+/)[0] ?? '';
      const whole = n.startIndex === 0 && n.endIndex >= text.trimEnd().length;
      found = whole
        ? { start: Math.max(0, text.trimEnd().length - 1), end: Math.max(1, text.trimEnd().length), detail: 'unexpected end of the expression' }
        : { start: n.startIndex, end: n.endIndex, detail: `unexpected '${tok.slice(0, 20)}'` };
      return true;
    }
    for (const c of n.children) if (c && (c.hasError || c.isMissing) && visit(c)) return true;
    return false;
  };
  visit(root);
  return found;
}
