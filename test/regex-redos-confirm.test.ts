/**
 * regex-redos's control case: the pattern run by the host's Python `re` on the attack grown to ≥ 1e11
 * predicted backtracking steps (it cannot finish within the case's bound on any machine) next to the same
 * attack shrunk to a few thousand steps (it returns in milliseconds even on a loaded machine). The verdict
 * rests on that gap, never on a measured time. The fixed twins give no finding to run.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';
import { parseAttack } from '../rules/regex-redos/oracle.js';

it("reads recheck's attack expressions", () => {
  expect(parseAttack(String.raw`'0' + '0'.repeat(31) + '\x00'`)).toEqual([{ text: '0' }, { text: '0', times: 31 }, { text: '\0' }]);
  expect(parseAttack(`'display_name='.repeat(15192)`)).toEqual([{ text: 'display_name=', times: 15192 }]);
  expect(parseAttack(String.raw`'\u{1F600}'.repeat(3) + '\''`)).toEqual([{ text: '\u{1F600}', times: 3 }, { text: "'" }]);
  expect(parseAttack('not an attack')).toBeUndefined();
});

it('confirms exponential and polynomial patterns in task JSON and in verifier code', async () => {
  expect(await confirmStatuses('regex-redos', 'fixtures/incorrect/nested-quantifiers')).toEqual([
    ['exponential', 18, 'confirmed'],
    ['exponential', 25, 'confirmed'],
  ]);
  expect(await confirmStatuses('regex-redos', 'fixtures/incorrect/verifier-literal')).toEqual([['exponential', 5, 'confirmed']]);
  expect(await confirmStatuses('regex-redos', 'fixtures/incorrect/polynomial-log-pattern')).toEqual([['polynomial', 6, 'confirmed']]);
}, 120_000);

it('a pattern the analysis could not take has no attack to run; the fixed twins have no finding', async () => {
  expect(await confirmStatuses('regex-redos', 'fixtures/incorrect/not-analysed')).toEqual([['notAnalysed', 11, undefined]]);
  expect(await confirmStatuses('regex-redos', 'fixtures/correct/polynomial-log-pattern-fixed')).toEqual([]);
  expect(await confirmStatuses('regex-redos', 'fixtures/correct/linear-patterns')).toEqual([]);
}, 120_000);
