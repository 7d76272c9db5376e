/**
 * A witness is whole in the JSON report (a witness cut short can hide what decided the case, e.g.
 * VER-001's `"value": null` at its end) and shortened in the one-screen views (stylish, markdown).
 */
import { describe, expect, it } from 'vitest';
import { formatJson } from '../src/report/json.js';
import { formatStylish } from '../src/report/stylish.js';
import { formatMarkdown } from '../src/report/markdown.js';
import { richInput } from './helpers/report-input.js';

const LONG = `eval_item={"type":"states","find":"lambda key, value: key.endswith(')._name') and value == 'A'","key":"lambda key: '.'.join(key.split('.')[:-1] + ['_vertex_colors'])","value":null}, current_states={}`;

describe('witnesses in reports', () => {
  const input = richInput();
  input.findings[0] = { ...input.findings[0]!, confirmation: { ...input.findings[0]!.confirmation!, witness: LONG, observed: `returned False; ${'x'.repeat(300)} END` } };

  it('JSON keeps the whole witness and observation', () => {
    const f = JSON.parse(formatJson(input)).findings[0];
    expect(f.confirmation.witness).toBe(LONG);
    expect(f.confirmation.observed).toMatch(/ END$/);
  });

  it('stylish and markdown shorten them to one screen', () => {
    for (const text of [formatStylish(input), formatMarkdown(input)]) {
      expect(text).toMatch(/eval\\?_item=/);
      expect(text).not.toContain('"value":null}, current_states={}');
      expect(text).not.toContain(' END');
      expect(text).toContain('…');
    }
  });
});
