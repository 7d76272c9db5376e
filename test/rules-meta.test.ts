/** Rule metadata: ids, docs and messages follow the house style. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules } from '../src/contract/registry.js';

const rules = await loadRules();
const RULES_DIR = path.resolve(import.meta.dirname, '../rules');

it('every folder in rules/ is a registered rule whose id is its folder name', () => {
  const files = readdirSync(RULES_DIR).sort();
  expect(files).toEqual([...rules.keys()].sort());
});

describe.each([...rules.values()].map((r) => [r.meta.id, r.meta] as const))('%s meta', (id, meta) => {
  it('has a kebab-case id, a description, a severity and layers', () => {
    expect(id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
    expect(meta.description.length).toBeGreaterThan(10);
    expect(['warn', 'error']).toContain(meta.defaultSeverity);
    expect(meta.layers.length).toBeGreaterThan(0);
    expect(meta.languages.length).toBeGreaterThan(0);
  });
  it('has docs that say what it does and why it matters', () => {
    expect(meta.docs.whatItDoes.length).toBeGreaterThan(20);
    expect(meta.docs.why.length).toBeGreaterThan(20);
  });
  it('has messages that are capitalised sentences ending with a period', () => {
    const msgs = Object.entries(meta.messages);
    expect(msgs.length).toBeGreaterThan(0);
    const sentence = (text: string, at: string) => {
      expect(text, at).toMatch(/^[A-Z`'"{(]/);
      expect(text.trimEnd(), at).toMatch(/[.!?]$/);
    };
    for (const [mid, m] of msgs) {
      expect(mid).toMatch(/^[a-zA-Z][a-zA-Z0-9]*$/);
      // three parts: what is wrong, why it makes the benchmark lie, what to do
      for (const part of ['what', 'why', 'fix'] as const) {
        sentence(m[part], `${id}.${mid}.${part}`);
        expect(m[part].length, `${id}.${mid}.${part}`).toBeGreaterThan(10);
      }
    }
  });
});

it('a rule confirms exactly when its folder has an oracle, and the oracle is its own', async () => {
  const { loadOracles } = await import('../src/confirm/oracles.js');
  const { python, bundle } = await loadOracles();
  const oracles = new Set([...python.keys(), ...bundle.keys()]);
  const confirming = [...rules.values()].filter((r) => r.meta.confirm).map((r) => r.meta.id).sort();
  expect([...oracles].sort()).toEqual(confirming);
  for (const r of rules.values()) if (r.meta.confirm) expect(r.meta.confirm.oracle).toBe(r.meta.id);
});

it('a rule with options gives a default for each, and the defaults satisfy its schema', async () => {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  for (const r of rules.values()) {
    const schema = r.meta.optionsSchema;
    if (!schema) {
      expect(r.meta.defaultOptions, `${r.meta.id} has defaults but no optionsSchema`).toBeUndefined();
      continue;
    }
    const defaults = r.meta.defaultOptions as Record<string, unknown> | undefined;
    expect(Object.keys(defaults ?? {}).sort(), `${r.meta.id}: defaultOptions`).toEqual(Object.keys((schema.properties ?? {}) as object).sort());
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(defaults), `${r.meta.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
});
