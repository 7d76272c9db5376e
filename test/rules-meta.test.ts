/** Rule metadata: ids, docs and messages follow the house style. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules } from '../src/engine/registry.js';

const rules = await loadRules();
const RULES_DIR = path.resolve(import.meta.dirname, '../rules');

it('every file in rules/ is a registered rule whose id is its file name', () => {
  const files = readdirSync(RULES_DIR).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
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
    for (const [mid, text] of msgs) {
      expect(mid).toMatch(/^[a-zA-Z][a-zA-Z0-9]*$/);
      expect(text, `${id}.${mid}`).toMatch(/^[A-Z`'"{(]/);
      expect(text.trimEnd(), `${id}.${mid}`).toMatch(/\.$/);
      expect(text.length, `${id}.${mid} should say what, why and what to do`).toBeGreaterThan(40);
    }
  });
});

it('every confirmable rule names an oracle that exists in src/confirm/oracles', async () => {
  const { readdirSync: ls } = await import('node:fs');
  const oracles = new Set(ls(path.resolve(import.meta.dirname, '../src/confirm/oracles')).map((f) => f.replace(/\.ts$/, '')));
  const missing = [...rules.values()].filter((r) => r.meta.confirm && !oracles.has(r.meta.confirm.oracle)).map((r) => r.meta.id);
  expect(missing).toEqual([]);
});
