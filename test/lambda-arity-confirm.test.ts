/**
 * lambda-arity's control case: the task's lambda called by the host's Python with as many positional
 * arguments as its role gets. The binding TypeError confirms; a lambda whose parameters take the call
 * (a default, `*args`) is refuted — the rule reports no such lambda, so that half is checked on requests
 * built here.
 */
import { expect, it } from 'vitest';
import type { Finding } from '../src/core/types.js';
import { confirmFindings } from '../src/confirm/index.js';
import { confirmStatuses } from './helpers/confirm-statuses.js';

it('confirms lambdas whose parameters cannot take the verifier call', async () => {
  expect(await confirmStatuses('lambda-arity', 'fixtures/incorrect/too-few')).toEqual([
    ['arity', 10, 'confirmed'],
    ['arity', 16, 'confirmed'],
  ]);
  expect(await confirmStatuses('lambda-arity', 'fixtures/incorrect/too-many-and-kwonly')).toEqual([
    ['arity', 9, 'confirmed'],
    ['arity', 17, 'confirmed'],
    ['arity', 24, 'confirmed'],
  ]);
  expect(await confirmStatuses('lambda-arity', 'fixtures/correct/flexible-signatures')).toEqual([]);
}, 90_000);

it('refutes a lambda the call binds to, even one that then raises in its body', async () => {
  const request = (code: string, arity: number): Finding => ({
    ruleId: 'lambda-arity',
    messageId: 'arity',
    message: 'm.',
    parts: { what: 'm.', why: '', fix: '' },
    severity: 'error',
    file: '/tmp/task.json',
    range: { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 2, offset: 1 } },
    control: { oracle: 'lambda-arity', code, arity },
  });
  const fs = [request('lambda key, value=None: key', 2), request('lambda *a: a[0]["x"]', 1), request('lambda key: key', 2)];
  await confirmFindings(fs, undefined, { root: process.cwd(), jobs: 1, timeoutMs: 3000 });
  expect(fs.map((f) => f.confirmation?.status)).toEqual(['refuted', 'refuted', 'confirmed']);
}, 60_000);
