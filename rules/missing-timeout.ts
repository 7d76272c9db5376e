/**
 * missing-timeout — process, HTTP and socket calls that can wait forever; interactive tools started
 * with the verifier's stdin and no non-interactive flag (VER-005, VER-006).
 * (A `javascript` visitor can be added next to `python` below.)
 */
import { defineRule } from '../src/engine/rule.js';
import { blockingCall, hasTimeout, interactiveTool, processWait, boundedByAsyncio, socketTimeoutSet, literalArgv } from '../src/lang/python/facts.js';

type Msg = 'noTimeout' | 'wait' | 'interactive';

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

export default defineRule<Msg>({
  meta: {
    id: 'missing-timeout',
    description: 'A subprocess, HTTP or socket call with no timeout, or an interactive tool started with inherited stdin: the verifier can hang forever.',
    defaultSeverity: 'error',
    layers: ['python'],
    languages: ['python'],
    messages: {
      noTimeout: '`{{call}}` has no timeout, so if {{what}} stalls the verifier waits forever and the run hangs instead of grading. Pass `timeout=` and treat expiry as a failed verification.',
      wait: '`{{call}}` waits for the process with no timeout, so a stalled tool hangs the verifier instead of failing the check. Pass `timeout=` (or wrap it in `asyncio.wait_for`) and fail closed on expiry.',
      interactive: '`{{tool}}` is started with the verifier\'s stdin and without {{flag}}, so on an error it waits for keyboard input and the check hangs. Pass {{flag}}, `stdin=subprocess.DEVNULL` and a timeout.',
    },
    docs: {
      whatItDoes: 'Flags `subprocess.run/call/check_call/check_output`, `Popen.wait/communicate`, asyncio process waits, `requests`/`Session` calls, `urlopen`, `socket.create_connection` and `sock.connect` without a timeout, and interactive tools (`pdflatex` without `-interaction=nonstopmode`, `ssh` without `BatchMode=yes`, `sudo` without `-n`, `apt-get` without `-y`) started with inherited stdin.',
      why: 'A Lean build or a LaTeX run that waits for input never returns (VER-005, VER-006): the whole benchmark run hangs, or the harness kills it and records an infrastructure failure instead of a verdict.',
      incorrect: [
        {
          files: {
            'verifier/tex.py': 'import subprocess\n\n\ndef compile_tex(path):\n    proc = subprocess.run(["pdflatex", path])  # vaudit-expect: missing-timeout, missing-timeout\n    return proc.returncode == 0\n',
          },
        },
      ],
      correct: [
        {
          files: {
            'verifier/tex.py': 'import subprocess\n\n\ndef compile_tex(path):\n    try:\n        proc = subprocess.run(\n            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path],\n            stdin=subprocess.DEVNULL, capture_output=True, timeout=180,\n        )\n    except subprocess.TimeoutExpired:\n        return False\n    return proc.returncode == 0\n',
          },
        },
      ],
      references: ['VER-005', 'VER-006'],
    },
    confirm: {
      oracle: 'missing-timeout',
      description: 'Runs the call as written against a stub tool or local endpoint that stalls; the function not returning within the bound confirms the hang.',
    },
  },
  create() {
    return {
      python: {
        call(node, c) {
          const a = c.python;
          const call = a.call(node);
          if (!call) return;
          const fn = a.functionAt(call.node);
          const base = { file: a.path, line: a.line(call.node), qualname: fn?.qualname ?? '' };
          const argv = literalArgv(a, call);
          const tool = argv?.[0] && argv[0] !== '\u0000' ? argv[0] : undefined;
          const kind = blockingCall(a, call);
          if (kind) {
            let missing = !hasTimeout(call, kind);
            if (kind === 'socket-connect' && call.receiver && socketTimeoutSet(a, call.receiver, fn)) missing = false;
            if (kind === 'popen') missing = false; // Popen itself returns at once; its wait/communicate is checked
            if (missing) {
              c.report({
                messageId: 'noTimeout',
                data: { call: a.src(call.fn) + '(…)', what: WHAT[kind] ?? 'the peer' },
                at: call.node,
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
                  control: { oracle: 'missing-timeout', ...base, callKind: 'interactive', tool: it.tool },
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
              control: { oracle: 'missing-timeout', ...base, callKind: w },
            });
          }
        },
      },
    };
  },
});
