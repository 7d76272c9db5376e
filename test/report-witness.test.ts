/**
 * A witness is whole in the JSON report (a witness cut short can hide what decided the case, e.g.
 * VER-001's `"value": null` at its end) and shortened in the one-screen views (stylish, markdown).
 */
import { describe, expect, it } from 'vitest';
import { formatJson } from '../src/report/json.js';
import { formatStylish } from '../src/report/stylish.js';
import type { ReportInput } from '../src/report/model.js';
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

describe('control cases refused by the isolation policy', () => {
  it('are not counted as runs, and each finding points to the one reason in the summary', () => {
    const input: ReportInput = richInput();
    const detail = 'bubblewrap is not installed';
    for (const f of input.findings) f.confirmation = { status: 'sandbox', detail, runId: undefined };
    input.runs = input.findings.map((_, i) => ({ runId: `r-${i}`, outcome: 'sandbox' }));
    const text = formatStylish(input);
    expect(text).toContain(`(0 control-case runs; ${input.findings.length} refused by the isolation policy)`);
    expect(text.split(detail).length - 1).toBe(1);
    expect(text).toContain('↳ sandbox — no isolation available (see the summary)');
  });
});
