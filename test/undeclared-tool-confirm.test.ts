/**
 * undeclared-tool's control case: evaluate run with the recording runtime port, which rejects a tool id
 * outside the check's requiredTools and notes a run bound to another check, as the host does. Every
 * finding of the incorrect fixture is confirmed at its own run; the fixed twin has none.
 */
import { expect, it } from 'vitest';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms undeclared tools and runs bound to another check', async () => {
  expect(await confirmStatuses('undeclared-tool', 'fixtures/incorrect/tool-and-check-ids')).toEqual([
    ['toolNotDeclared', 6, 'confirmed'],
    ['toolNotDeclared', 18, 'confirmed'],
    ['checkIdMismatch', 19, 'confirmed'],
    // the check's first run (the helper's undeclared 'bash') is rejected, so evaluate never gets here
    ['missingMember', 30, 'unreached'],
  ]);
  expect(await confirmStatuses('undeclared-tool', 'fixtures/incorrect/missing-members')).toEqual([
    ['missingMember', 11, 'confirmed'],
    ['missingMember', 19, 'confirmed'],
    ['toolNotDeclared', 29, 'confirmed'],
  ]);
  expect(await confirmStatuses('undeclared-tool', 'fixtures/correct/missing-members-fixed')).toEqual([]);
  expect(await confirmStatuses('undeclared-tool', 'fixtures/correct/constants-and-helpers')).toEqual([]);
}, 120_000);
