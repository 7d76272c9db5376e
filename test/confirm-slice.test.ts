import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slicePython, functionInfo } from '../src/confirm/slice-python.js';
import { createHost } from '../src/host/host.js';
import { runPythonCases } from '../src/confirm/harness.js';
import { ERROR_FACTORY } from './helpers/python-sources.js';

const dir = mkdtempSync(join(tmpdir(), 'vaudit-slice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pkg = join(dir, 'verifier');
mkdirSync(pkg);
writeFileSync(join(pkg, '__init__.py'), 'from .chimerax import Mixin\n');
writeFileSync(
  join(pkg, 'utils.py'),
  `import functools
import requests_not_installed_anywhere


${ERROR_FACTORY}

def fetch(url):
    return requests_not_installed_anywhere.get(url)
`,
);
const CHIMERAX = `import json
import requests_not_installed_anywhere
from .utils import error_factory

SUFFIX = ")._name"
UNUSED = requests_not_installed_anywhere.Session()


class Mixin:
    kind = "chimerax"

    def _matches(self, key):
        return key.endswith(SUFFIX)

    @error_factory(False)
    def _eval_states(self, eval_item, current_states):
        if eval_item.get("find") is not None:
            matched = [k for k in current_states if self._matches(k)]
            if eval_item["value"] is None:
                return len(raw_keys) == 0
        return "key" in eval_item and current_states.get(eval_item["key"]) == eval_item["value"]

    def _eval_remote(self, eval_item):
        return requests_not_installed_anywhere.get(eval_item["url"]).json()


if __name__ == "__main__":
    Mixin()._eval_remote({})
`;
writeFileSync(join(pkg, 'chimerax.py'), CHIMERAX);

describe('slicePython', () => {
  it('keeps the function, its class (reached methods only), referenced definitions and project helpers, at original lines', async () => {
    const s = (await slicePython(join(pkg, 'chimerax.py'), { line: 20 }))!;
    expect(s.qualname).toBe('Mixin._eval_states');
    expect(s.entryModule).toBe('verifier.chimerax');
    const main = s.modules.find((m) => m.name === 'verifier.chimerax')!;
    const lines = main.source.split('\n');
    expect(lines.length).toBe(CHIMERAX.split('\n').length);
    expect(lines[19]).toBe('                return len(raw_keys) == 0');
    expect(main.source).toContain('def _matches(self, key):');
    expect(main.source).toContain('SUFFIX = ")._name"');
    expect(main.source).toContain('from .utils import error_factory');
    expect(main.source).not.toContain('_eval_remote');
    expect(main.source).not.toContain('UNUSED');
    expect(main.source).not.toContain('import requests_not_installed_anywhere');
    expect(main.source).not.toContain('__main__');
    const utils = s.modules.find((m) => m.name === 'verifier.utils')!;
    expect(utils.source).toContain('def error_factory(default):');
    expect(utils.source).toContain('import functools');
    expect(utils.source).not.toContain('requests_not_installed_anywhere');
  });

  it('reports parameters and the keys a function reads', async () => {
    const info = (await functionInfo(CHIMERAX, { qualname: 'Mixin._eval_states' }))!;
    expect(info.params).toEqual(['self', 'eval_item', 'current_states']);
    expect(info.isMethod).toBe(true);
    expect(info.reads.eval_item!.keys.sort()).toEqual(['find', 'key', 'value']);
    expect(info.reads.current_states!.methods).toEqual(['get']);
  });

  it('the slice runs in the harness and shows the swallowed NameError at its line', async () => {
    const s = (await slicePython(join(pkg, 'chimerax.py'), { qualname: 'Mixin._eval_states' }))!;
    const host = createHost({ root: dir, isolation: 'process' });
    const [r] = await runPythonCases(host, [
      { id: 'x', modules: s.modules, entry: { module: s.entryModule, qualname: s.qualname }, self: { $double: 'self', attrs: {} }, args: [{ find: 'lambda k, v: True', value: null }, { 'm.(1,)._name': 'a' }], traceFiles: s.traceFiles },
    ]);
    expect(r!.status).toBe('returned');
    expect(r!.value).toBe(false);
    expect(r!.events).toContainEqual(expect.objectContaining({ type: 'NameError', line: 20, file: join(pkg, 'chimerax.py') }));
  });
});
