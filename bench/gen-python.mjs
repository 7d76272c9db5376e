#!/usr/bin/env node
// Writes a realistic verifier package of about `lines` lines of Python (default 8,000):
// mixin classes with `_eval_<kind>` methods, helpers running tools with subprocess,
// HTTP state reads, and an exception-swallowing decorator — the shapes vaudit analyses.
// Usage: node bench/gen-python.mjs <outDir> [lines]
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function genPython(outDir, targetLines = 8000) {
  const pkg = path.join(outDir, 'verifier');
  mkdirSync(path.join(pkg, 'base'), { recursive: true });
  writeFileSync(path.join(pkg, '__init__.py'), '');
  writeFileSync(path.join(pkg, 'base', '__init__.py'), '');
  writeFileSync(path.join(pkg, 'base', 'utils.py'), `import functools
import logging

logger = logging.getLogger(__name__)


def error_factory(default):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001
                logger.warning("verifier error: %s", exc)
                return default
        return wrapper
    return decorator
`);
  let lines = 20;
  let n = 0;
  while (lines < targetLines) {
    const fam = `family${n}`;
    mkdirSync(path.join(pkg, fam), { recursive: true });
    writeFileSync(path.join(pkg, fam, '__init__.py'), '');
    const methods = [];
    for (let m = 0; m < 12; m++) {
      methods.push(`
    @error_factory(False)
    def _eval_kind${m}(self, eval_item, current_states):
        key = eval_item["key"]
        expected = eval_item.get("value")
        pattern = eval_item.get("pattern")
        raw_key = None
        if "find" in eval_item:
            finder = eval(eval_item["find"])
            matches = [k for k, v in current_states.items() if finder(k, v)]
            if not matches:
                return expected is None
            raw_key = sorted(matches)[0]
        else:
            raw_key = key
        if expected is None:
            return raw_key not in current_states
        value = current_states.get(raw_key)
        if pattern is not None:
            import re
            return re.search(pattern, str(value)) is not None
        if isinstance(expected, float):
            return abs(float(value) - expected) < 1e-6
        lines_expected = sorted(str(expected).splitlines())
        lines_actual = sorted(str(value).splitlines())
        return lines_expected == lines_actual
`);
    }
    const text = `import json
import subprocess

import requests

from ..base.utils import error_factory


class ${fam.charAt(0).toUpperCase() + fam.slice(1)}Mixin:
    endpoint = "http://127.0.0.1:${8000 + n}/state"

    def states(self):
        try:
            response = requests.get(self.endpoint, timeout=10)
            return response.json()
        except (requests.RequestException, ValueError):
            return None

    def run_tool(self, *argv):
        proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout + proc.stderr

    def evaluate(self, eval_item):
        current_states = self.states()
        if current_states is None:
            return False
        handler = getattr(self, f"_eval_{eval_item['type']}")
        return handler(eval_item, current_states)
${methods.join('')}`;
    writeFileSync(path.join(pkg, fam, 'verifier.py'), text);
    lines += text.split('\n').length;
    n++;
  }
  return { files: n * 2 + 4, lines };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node bench/gen-python.mjs <outDir> [lines]');
    process.exit(2);
  }
  console.log(genPython(out, Number(process.argv[3] ?? 8000)));
}
