/**
 * bundle-spawns-process — a correctness-model bundle imports a process-spawning module (seed 000: "One
 * process owner … they never receive the host handle or import child_process").
 */
import { defineRule } from '../../src/contract/rule.js';

type Msg = 'spawns' | 'dynamicImport';

/** Modules whose purpose is starting processes or threads outside the host. */
const SPAWNING = new Set([
  'child_process',
  'worker_threads',
  'cluster',
  'execa',
  'cross-spawn',
  'shelljs',
  'zx',
  'node-pty',
  '@lydell/node-pty',
  'spawn-sync',
  'await-spawn',
  'promisify-child-process',
  '@npmcli/promise-spawn',
  '@npmcli/run-script',
  'tinyexec',
  'nano-spawn',
  'bun',
  'execa-cjs',
]);

export function spawningModule(specifier: string): boolean {
  const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  if (SPAWNING.has(bare)) return true;
  const [a, b] = bare.split('/');
  return SPAWNING.has(a!.startsWith('@') ? `${a}/${b}` : a!);
}

export default defineRule<Msg>({
  meta: {
    id: 'bundle-spawns-process',
    description: 'A correctness-model bundle imports `child_process`, `worker_threads` or a process-spawning package instead of running tools through the host.',
    defaultSeverity: 'error',
    layers: ['bundle'],
    languages: ['typescript', 'javascript'],
    messages: {
      spawns: {
        what: 'The bundle {{how}} `{{module}}`, which starts processes outside the host.',
        why: 'Only the host resolves and hashes tools, isolates runs and records executed (checkId, toolId) bindings; a process the bundle starts itself grounds no verdict and escapes the sandbox.',
        fix: 'Declare the tool in `requiredTools` and call `runtime.tools.run(...)`.',
      },
      dynamicImport: {
        what: 'The bundle imports a module whose name is computed (`{{module}}`).',
        why: 'It can load `child_process` or any spawning package unseen, and a bundle may only start processes through `runtime.tools.run(...)`.',
        fix: 'Import modules by literal name.',
      },
    },
    docs: {
      whatItDoes:
        'Flags static imports, `export … from`, `import x = require()`, `require()` and dynamic `import()` of `child_process`, `worker_threads`, `cluster` and process-spawning packages (execa, cross-spawn, shelljs, zx, node-pty…), with or without the `node:` prefix, and dynamic imports whose module name is computed, in any file that is a bundle.',
      why: 'The host is the single process owner: it decides which executable a tool id names, checks its bytes, bounds time and output and records the run. A check that spawns its own compiler produces a verdict no record can attest and runs with the bundle\'s privileges.',
      references: ['seed 000: One process owner', 'docs/bundles.md'],
    },
    confirm: {
      oracle: 'bundle-spawns-process',
      staticOnly: true,
      description: 'No control case: the bundle starts processes the host does not own, whatever the check returns, and under the host the spawn is refused; every finding is `unsupported`, saying so and what to change.',
    },
  },
  create(ctx) {
    return {
      bundle: {
        bundle(model) {
          for (const imp of model.imports) {
            if (imp.specifier.startsWith('<')) {
              if (imp.kind === 'dynamic-import' || imp.kind === 'require') ctx.report({ messageId: 'dynamicImport', data: { module: imp.specifier.slice(1, -1) }, at: imp, control: { oracle: 'bundle-spawns-process', module: imp.specifier.slice(1, -1) } });
              continue;
            }
            if (!spawningModule(imp.specifier)) continue;
            const how = imp.kind === 'dynamic-import' ? 'dynamically imports' : imp.kind === 'require' ? 'requires' : imp.kind === 'export-from' ? 're-exports' : 'imports';
            ctx.report({ messageId: 'spawns', data: { how, module: imp.specifier }, at: { start: imp.start, end: imp.end }, control: { oracle: 'bundle-spawns-process', module: imp.specifier } });
          }
        },
      },
    };
  },
});
