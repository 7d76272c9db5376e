/** The build's precompiled task-schema validators (ajv standalone) agree with ajv compiling the schemas live. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import { liveValidators, standaloneValidatorsSource } from '../src/suites/schema.js';
import { listFiles } from './helpers/lint-case.js';

it('standalone validators give the same verdicts and errors as live ajv on every fixture task', () => {
  // inside the package, so the generated code resolves ajv's runtime helpers as it does from dist/
  const cache = path.resolve(import.meta.dirname, '../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'vaudit-schemas-'));
  try {
    const file = path.join(dir, 'validators.cjs');
    writeFileSync(file, standaloneValidatorsSource());
    const pre = createRequire(import.meta.url)(file) as Record<string, ((d: unknown) => boolean) & { errors?: unknown[] | null }>;
    const live = liveValidators();
    expect(typeof pre.schemaHash).toBe('string');
    // the demo suite and every rule's fixtures (rules/<id>/fixtures)
    const tasks = ['../fixtures', '../rules']
      .flatMap((d) => listFiles(path.resolve(import.meta.dirname, d)))
      .filter((f) => f.endsWith('.json') && f.includes('/tasks/'));
    expect(tasks.length).toBeGreaterThan(30);
    let invalid = 0;
    for (const t of tasks) {
      let doc: { type?: string };
      try { doc = JSON.parse(readFileSync(t, 'utf8')); } catch { continue; }
      const fam = typeof doc?.type === 'string' && doc.type in live ? doc.type : 'generic';
      const a = live[fam]!(doc);
      const b = pre[fam]!(doc);
      expect(b, t).toBe(a);
      expect(pre[fam]!.errors ?? null, t).toEqual(live[fam]!.errors ?? null);
      if (!a) invalid++;
    }
    expect(invalid, 'the fixtures include schema defects').toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
