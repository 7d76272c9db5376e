// STUB (owner: Python engineer replaces this file).
import type { Suite } from './types.js';
import type { PythonProject } from '../lang/python/types.js';
export function bindVerifiers(_suites: readonly Suite[], _python: PythonProject, _opts: Record<string, unknown> = {}): void {}
