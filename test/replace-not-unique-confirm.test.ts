/**
 * replace-not-unique's control case: Python's own str.count and str.replace on the touched text with the
 * entry's source and target, as the verifier builds the expected file. The incorrect fixtures are
 * confirmed; a source that occurs once is refuted (the rule reports none: checked on requests built here).
 */
import { expect, it } from 'vitest';
import type { Finding } from '../src/core/types.js';
import { confirmFindings } from '../src/confirm/index.js';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms a source that occurs twice, is absent, or is its own target', async () => {
  expect(await confirmStatuses('replace-not-unique', 'fixtures/incorrect/several-occurrences')).toEqual([['ambiguous', 17, 'confirmed']]);
  expect(await confirmStatuses('replace-not-unique', 'fixtures/incorrect/absent-and-noop')).toEqual([
    ['absent', 17, 'confirmed'],
    ['noop', 24, 'confirmed'],
  ]);
  expect(await confirmStatuses('replace-not-unique', 'fixtures/incorrect/last-touch-wins')).toEqual([['absent', 22, 'confirmed']]);
  expect(await confirmStatuses('replace-not-unique', 'fixtures/correct/unique')).toEqual([]);
}, 90_000);

it('refutes a claim Python\'s string functions disagree with', async () => {
  const request = (kind: string, text: string, source: string, target: string): Finding => ({
    ruleId: 'replace-not-unique',
    messageId: kind,
    message: 'm.',
    parts: { what: 'm.', why: '', fix: '' },
    severity: 'error',
    file: '/tmp/task.json',
    range: { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 2, offset: 1 } },
    control: { oracle: 'replace-not-unique', kind, text, source, target },
  });
  const fs = [request('absent', 'a \\b c', '\\b', 'B'), request('ambiguous', 'aaa', 'aa', 'b'), request('noop', 'x', 'x', 'y')];
  await confirmFindings(fs, undefined, { root: process.cwd(), jobs: 1, timeoutMs: 3000 });
  // str.count counts non-overlapping occurrences: "aa" occurs once in "aaa"
  expect(fs.map((f) => f.confirmation?.status)).toEqual(['refuted', 'refuted', 'refuted']);
}, 60_000);
