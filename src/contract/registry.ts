/**
 * The rule table: every `rules/<id>/rule.(ts|js)` that default-exports a rule, loaded once. A rule
 * is one folder: `rule.ts` (metadata and visitors), `fixtures/` (annotated incorrect/correct
 * cases) and, when it confirms, `oracle.ts` (loaded by the confirm stage, src/confirm/oracles.ts).
 * The id must equal the folder name (checked here and by the tests).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Rule, RuleExample } from './rule.js';
import { importModule } from '../core/dynamic-import.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `<pkg>/rules` next to `<pkg>/src/engine` (sources) or `<pkg>/dist/rules` next to `dist/src/engine`. */
export const RULES_DIR = path.resolve(here, '../../rules');
/** `.ts` when running from sources (vitest), `.js` from the build. */
export const MODULE_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** The source `rules/` folder, which holds the docs examples (the build compiles only the modules):
 *  RULES_DIR itself when running from sources, `<pkg>/rules` from `<pkg>/dist/src/engine`. */
const DOCS_RULES_DIR = MODULE_EXT === '.ts' ? RULES_DIR : path.resolve(here, '../../../rules');

/** Every file under `dir`, as relative paths with `/`, sorted. */
function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(dir, path.posix.join(rel, e.name)) : [path.posix.join(rel, e.name)]))
    .sort();
}

/** A rule's docs examples of one kind: `rules/<id>/docs/<kind>/<n>/` (n = 1, 2, …), each a mini project;
 *  its `note.md` is the prose shown above it. */
function readDocsExamples(id: string, kind: 'incorrect' | 'correct'): RuleExample[] {
  const dir = path.join(DOCS_RULES_DIR, id, 'docs', kind);
  if (!existsSync(dir)) return [];
  const cases = readdirSync(dir).filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(a) - Number(b));
  return cases.map((n) => {
    const root = path.join(dir, n);
    const files: Record<string, string> = {};
    let note: string | undefined;
    for (const rel of filesUnder(root)) {
      const text = readFileSync(path.join(root, rel), 'utf8');
      if (rel === 'note.md') note = text.trim();
      else files[rel] = text;
    }
    return { files, ...(note ? { note } : {}) };
  });
}

/** `docs[kind]`, when the rule does not set it, read from its docs folder on first use: a check never
 *  reads them (only `vaudit rules`, the reports' rule help and the docs tests do), and reading every
 *  rule's examples cost a few hundred small file reads at each start. */
function lazyExamples(docs: Rule['meta']['docs'], kind: 'incorrect' | 'correct', read: () => RuleExample[]): void {
  if (docs[kind] !== undefined) return;
  let value: RuleExample[] | undefined;
  Object.defineProperty(docs, kind, {
    get: () => (value ??= read()),
    set: (v: RuleExample[]) => {
      value = v;
    },
    enumerable: true,
    configurable: true,
  });
}

/** The rule folders that hold a module named `<name><ext>` (sorted ids). */
export function ruleFoldersWith(name: string): string[] {
  if (!existsSync(RULES_DIR)) return [];
  return readdirSync(RULES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(RULES_DIR, d.name, name + MODULE_EXT)))
    .map((d) => d.name)
    .sort();
}

/** The URL of `rules/<id>/<name><ext>`. */
export function ruleModuleUrl(id: string, name: string): string {
  return pathToFileURL(path.join(RULES_DIR, id, name + MODULE_EXT)).href;
}

/** Each rule's option schema (undefined: it takes no options), for validating configs. */
export function ruleOptionSchemas(rules: ReadonlyMap<string, Rule>): Map<string, Record<string, unknown> | undefined> {
  return new Map([...rules].map(([id, r]) => [id, r.meta.optionsSchema]));
}

let cache: Promise<Map<string, Rule>> | undefined;

export function loadRules(): Promise<Map<string, Rule>> {
  cache ??= (async () => {
    const ids = ruleFoldersWith('rule');
    const rules = new Map<string, Rule>();
    const loaded = await Promise.all(ids.map((id) => importModule(ruleModuleUrl(id, 'rule'))));
    ids.forEach((id, i) => {
      const rule = (loaded[i] as { default?: Rule }).default;
      if (!rule?.meta) throw new Error(`rules/${id}/rule${MODULE_EXT} does not default-export a rule`);
      if (rule.meta.id !== id) throw new Error(`rules/${id}/rule${MODULE_EXT} declares id '${rule.meta.id}'; the id must equal the folder name '${id}'`);
      lazyExamples(rule.meta.docs, 'incorrect', () => readDocsExamples(id, 'incorrect'));
      lazyExamples(rule.meta.docs, 'correct', () => readDocsExamples(id, 'correct'));
      rules.set(id, rule);
    });
    return rules;
  })();
  return cache;
}
