/**
 * Facts about the reference task format (SPEC §1.1) shared by the reference
 * adapter, the task schemas and the JSON-layer rules.
 */

/** App families and the verifier entry kinds each one grades. */
export const FAMILY_KINDS: Readonly<Record<string, readonly string[]>> = {
  Celestia: ['info', 'stop'],
  ChimeraX: ['states', 'file', 'info', 'stop'],
  GrassGIS: ['info', 'db', 'stop'],
  KAlgebra: ['eqn', 'val', 'var', 'stop'],
  Lean: ['placeholder', 'stop'],
  TeXstudio: ['compile', 'file', 'include', 'stop'],
};

export const FAMILIES: readonly string[] = Object.keys(FAMILY_KINDS);

/**
 * Entry fields that hold Python code the verifier `eval`s, with the number of
 * positional arguments it calls the result with. `key` is code only when it
 * starts with `lambda` (otherwise it is a dotted state path); `find` and
 * `pred` are always code.
 */
export const LAMBDA_FIELDS: Readonly<Record<string, { arity: number; alwaysCode: boolean }>> = {
  key: { arity: 1, alwaysCode: false },
  find: { arity: 2, alwaysCode: true },
  pred: { arity: 2, alwaysCode: true },
};

/**
 * Entry kinds whose `value` the verifier evals when it starts with `lambda`, and the number of
 * arguments it calls the result with: ScienceBoard's ChimeraX `_eval_file` does
 * `if value.startswith("lambda"): value = eval(value)()` (the text the file must contain).
 */
export const VALUE_LAMBDA_KINDS: Readonly<Record<string, { arity: number }>> = {
  'ChimeraX/file': { arity: 0 },
};

/** Entry fields that hold a regular expression for Python's `re`. */
export const REGEX_FIELDS: readonly string[] = ['pattern', 'regex'];

/** True when `text` (a decoded JSON string) is a Python lambda expression by its first token. */
export function looksLikeLambda(text: string): boolean {
  return /^\s*\(?\s*lambda(?![\p{L}\p{N}_])/u.test(text);
}

/** JSON members whose name starts with `//` are comments for vaudit. */
export function isCommentMember(name: string): boolean {
  return name.startsWith('//');
}
