/**
 * The Python type a value expression certainly has, read from its form alone: literals,
 * comprehensions, and calls of builtins (or `os.path` helpers) that never return None.
 */
import type { PythonAnalysis } from './types.js';
import { field, unparen, type PyNode } from './tree.js';
import { ownValue } from '../../core/own.js';

/** Builtins (and `os.path` helpers) whose call never returns None, with the type each returns (null: a number or other, not fixed). */
const NEVER_NONE: Record<string, string | null> = {
  list: 'list', dict: 'dict', set: 'set', tuple: 'tuple', frozenset: 'frozenset', str: 'str', int: 'int', float: 'float', bool: 'bool', bytes: 'bytes',
  sorted: 'list', len: 'int', repr: 'str', format: 'str', sum: null, abs: null, round: null, any: 'bool', all: 'bool', range: 'range', enumerate: 'enumerate', zip: 'zip', map: 'map', filter: 'filter', reversed: 'reversed',
  'os.path.join': 'str', 'os.path.basename': 'str', 'os.path.abspath': 'str',
};

/**
 * `'none'` for None; the type name (`list`, `dict`, `set`, `tuple`, `str`, `int`, `float`, `bool`, …) when
 * the expression always has it; null when it is never None but its type is not fixed (`sum(...)`);
 * undefined when the form says nothing.
 */
export function valueKind(a: PythonAnalysis, e0: PyNode): string | null | undefined {
  const e = unparen(e0);
  switch (e.type) {
    case 'none':
      return 'none';
    case 'list':
    case 'list_comprehension':
      return 'list';
    case 'dictionary':
    case 'dictionary_comprehension':
      return 'dict';
    case 'set':
    case 'set_comprehension':
      return 'set';
    case 'tuple':
      return 'tuple';
    case 'string':
    case 'concatenated_string':
      return 'str';
    case 'integer':
      return 'int';
    case 'float':
      return 'float';
    case 'true':
    case 'false':
      return 'bool';
    case 'call': {
      const f = field(e, 'function');
      const q = f ? a.qualifiedName(f) : undefined;
      return q ? ownValue(NEVER_NONE, q) : undefined;
    }
    default:
      return undefined;
  }
}
