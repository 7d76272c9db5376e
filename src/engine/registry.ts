/**
 * The rule table: every `rules/<id>.(ts|js)` that default-exports a rule, loaded
 * once. The id must equal the file name (checked by the tests and at load).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Rule } from './rule.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `<pkg>/rules` next to `<pkg>/src/engine` (sources) or `<pkg>/dist/rules` next to `dist/src/engine`. */
export const RULES_DIR = path.resolve(here, '../../rules');

let cache: Promise<Map<string, Rule>> | undefined;

export function loadRules(): Promise<Map<string, Rule>> {
  cache ??= (async () => {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const names = (existsSync(RULES_DIR) ? readdirSync(RULES_DIR) : [])
      .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts') && !f.endsWith('.test' + ext))
      .sort();
    const rules = new Map<string, Rule>();
    const loaded = await Promise.all(names.map((n) => import(pathToFileURL(path.join(RULES_DIR, n)).href)));
    names.forEach((n, i) => {
      const rule = (loaded[i] as { default?: Rule }).default;
      const id = n.slice(0, -ext.length);
      if (!rule?.meta) throw new Error(`rules/${n} does not default-export a rule`);
      if (rule.meta.id !== id) throw new Error(`rules/${n} declares id '${rule.meta.id}'; the id must equal the file name '${id}'`);
      rules.set(id, rule);
    });
    return rules;
  })();
  return cache;
}
