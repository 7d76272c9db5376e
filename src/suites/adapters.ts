/**
 * Registered suite adapters, in detection order. A new task format is one new
 * file implementing `SuiteAdapter` plus one line here.
 */
import type { SuiteAdapter } from './adapter.js';
import { referenceAdapter } from './reference.js';
import { osworldAdapter } from './osworld.js';
import { moduleRouteAdapter } from './harness/adapter.js';
import { kindDispatchAdapter } from './harness/kind-adapter.js';
import { pythonDataAdapter } from './harness/py-suites.js';

export const ADAPTERS: readonly SuiteAdapter[] = [referenceAdapter, osworldAdapter, moduleRouteAdapter, kindDispatchAdapter, pythonDataAdapter];
