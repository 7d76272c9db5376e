/**
 * missing-timeout — process, HTTP and socket calls that can wait forever; interactive tools started
 * with the verifier's stdin and no non-interactive flag (VER-005, VER-006).
 * (A `javascript` visitor can be added next to `python` below.)
 */
import { defineRule } from '../../src/contract/rule.js';
import { blockingCall, hasTimeout, interactiveTool, processWait, boundedByAsyncio, socketTimeoutSet, literalArgv } from '../../src/lang/python/facts.js';
import { unboundedCall, programOf } from '../../src/lang/js/index.js';
import { ownValue } from '../../src/core/own.js';
import { appendKeywordEdit } from '../../src/lang/python/edits.js';
import { fetchInitPropertyEdit } from '../../src/lang/js/edits.js';

type Msg = 'noTimeout' | 'wait' | 'interactive' | 'jsProcess' | 'jsFetch' | 'jsHttp';

interface Options {
  /** Seconds `--fix` writes as the `timeout=` of a blocking call (a fetch's abort signal in ms). */
  fixTimeout: number;
}

/** Call kinds whose function takes a `timeout=` keyword, so `--fix` can add it (a socket's `connect` does not). */
const TAKES_TIMEOUT_KEYWORD = new Set(['subprocess', 'requests', 'requests-session', 'urlopen', 'create-connection']);

const WHAT: Record<string, string> = {
  subprocess: 'the external tool',
  popen: 'the external tool',
  requests: 'the HTTP endpoint',
  'requests-session': 'the HTTP endpoint',
  httpx: 'the HTTP endpoint',
  urlopen: 'the HTTP endpoint',
  'socket-connect': 'the peer',
  'create-connection': 'the peer',
};

export default defineRule<Msg, Options>({
  meta: {
    id: 'missing-timeout',
    description: 'A subprocess, HTTP or socket call with no timeout, or an interactive tool started with inherited stdin: the verifier can hang forever.',
    defaultSeverity: 'error',
    layers: ['python', 'javascript'],
    unitLocal: true,
    languages: ['python', 'javascript'],
    messages: {
      jsProcess: {
        what: '`{{call}}` from child_process has no `timeout` option.',
        why: 'If the tool stalls, the verifier waits forever and the run hangs instead of grading.',
        fix: 'Pass `{ timeout: <ms>, killSignal: \'SIGKILL\' }` and treat expiry as a failed verification.',
      },
      jsFetch: {
        what: '`{{call}}` has no abort `signal`.',
        why: 'A stalled endpoint hangs the verifier forever instead of failing the check.',
        fix: 'Pass `{ signal: AbortSignal.timeout(<ms>) }` and fail closed on abort.',
      },
      jsHttp: {
        what: '`{{call}}` sets no timeout.',
        why: 'A peer that accepts the connection and never answers hangs the verifier.',
        fix: 'Pass `{ timeout: <ms> }` (or call `req.setTimeout`) and destroy the request on `timeout`.',
      },
      noTimeout: {
        what: '`{{call}}` has no timeout.',
        why: 'If {{what}} stalls, the verifier waits forever and the run hangs instead of grading.',
        fix: 'Pass `timeout=` and treat expiry as a failed verification.',
      },
      wait: {
        what: '`{{call}}` waits for the process with no timeout.',
        why: 'A stalled tool hangs the verifier instead of failing the check.',
        fix: 'Pass `timeout=` (or wrap it in `asyncio.wait_for`) and fail closed on expiry.',
      },
      interactive: {
        what: '`{{tool}}` is started with the verifier\'s stdin and without {{flag}}.',
        why: 'On an error it waits for keyboard input, so the check hangs.',
        fix: 'Pass {{flag}}, `stdin=subprocess.DEVNULL` and a timeout.',
      },
    },
    docs: {
      whatItDoes: 'Flags `subprocess.run/call/check_call/check_output`, `Popen.wait/communicate`, asyncio process waits, `requests`/`Session` calls, `urlopen`, `socket.create_connection` and `sock.connect` without a timeout, and interactive tools (`pdflatex` without `-interaction=nonstopmode`, `ssh` without `BatchMode=yes`, `sudo` without `-n`, `apt-get` without `-y`) started with inherited stdin.',
      why: 'A Lean build or a LaTeX run that waits for input never returns (VER-005, VER-006): the whole benchmark run hangs, or the harness kills it and records an infrastructure failure instead of a verdict.',
      references: ['VER-005', 'VER-006'],
    },
    optionsSchema: {
      type: 'object',
      properties: {
        fixTimeout: { type: 'number', exclusiveMinimum: 0, description: 'Seconds that `vaudit check --fix` (and the editor\'s quick fix) writes as `timeout=` of a blocking Python call (`signal: AbortSignal.timeout(<ms>)` of a `fetch`). Choose a bound above the slowest legitimate run of the tool or endpoint.' },
      },
      additionalProperties: false,
    },
    defaultOptions: { fixTimeout: 60 },
    confirm: {
      oracle: 'missing-timeout',
      description: 'Runs the call as written against a stub tool or local endpoint that stalls; the function not returning within the bound confirms the hang.',
    },
  },
  create(ctx) {
    const timeoutKw = `timeout=${ctx.options.fixTimeout}`;
    const signal = `signal: AbortSignal.timeout(${Math.round(ctx.options.fixTimeout * 1000)})`;
    return {
      javascript: {
        CallExpression(node, c, ancestors) {
          const program = programOf(ancestors);
          const u = program && unboundedCall(node, program);
          if (!u) return;
          const edit = u.kind === 'fetch' ? fetchInitPropertyEdit(c.text, node, signal) : undefined;
          c.report({
            messageId: u.kind === 'process' ? 'jsProcess' : u.kind === 'fetch' ? 'jsFetch' : 'jsHttp',
            data: { call: u.callee },
            at: node,
            ...(edit ? { fix: { title: `Add ${signal}`, edits: [edit] } } : {}),
          });
        },
      },
      python: {
        call(node, c) {
          const a = c.python;
          const call = a.call(node);
          if (!call) return;
          // what a report carries is computed for the calls reported (most calls are neither kind)
          const fnOf = () => a.functionAt(call.node);
          const baseOf = () => ({ file: a.path, line: a.line(call.node), qualname: fnOf()?.qualname ?? '' });
          const kind = blockingCall(a, call);
          if (kind) {
            let missing = !hasTimeout(call, kind);
            if (kind === 'socket-connect' && call.receiver && socketTimeoutSet(a, call.receiver, fnOf())) missing = false;
            if (kind === 'popen') missing = false; // Popen itself returns at once; its wait/communicate is checked
            if (missing) {
              const argv = literalArgv(a, call);
              const tool = argv?.[0] && argv[0] !== '\u0000' ? argv[0] : undefined;
              const base = baseOf();
              const edit = TAKES_TIMEOUT_KEYWORD.has(kind) && !call.kwargs.has('timeout') ? appendKeywordEdit(a.text, call, timeoutKw) : undefined;
              c.report({
                messageId: 'noTimeout',
                data: { call: a.src(call.fn) + '(…)', what: ownValue(WHAT, kind) ?? 'the peer' },
                at: call.node,
                ...(edit ? { fix: { title: `Add ${timeoutKw}`, edits: [edit] } } : {}),
                control: { oracle: 'missing-timeout', ...base, callKind: kind, ...(tool ? { tool } : {}) },
              });
            }
            if (kind === 'subprocess' || kind === 'popen') {
              const it = interactiveTool(a, call);
              if (it) {
                c.report({
                  messageId: 'interactive',
                  data: { tool: it.tool, flag: it.flag },
                  at: call.node,
                  control: { oracle: 'missing-timeout', ...baseOf(), callKind: 'interactive', tool: it.tool },
                });
              }
            }
            return;
          }
          const w = processWait(a, call);
          if (w && !(w === 'asyncio' && boundedByAsyncio(a, call.node))) {
            c.report({
              messageId: 'wait',
              data: { call: a.src(call.fn) + '()' },
              at: call.node,
              control: { oracle: 'missing-timeout', ...baseOf(), callKind: w },
            });
          }
        },
      },
    };
  },
});
