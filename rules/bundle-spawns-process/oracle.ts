/**
 * Oracle `bundle-spawns-process`: no control case. The finding is the bundle's contract, not a verdict: it
 * imports a module that starts processes outside the host, so those runs have no declared tool, no pinning,
 * no isolation and no run record, whatever the check then returns. Under the host a bundle runs with Node's
 * permission model and the spawn is refused, which shows vaudit's isolation, not a wrong verdict of the
 * check. So every finding is `unsupported`, saying so and what to do (the bundle rules with control cases,
 * e.g. ungrounded-pass and ignored-exit-code, confirm what the check does with the runs the host makes).
 *
 * finding.control: { oracle: 'bundle-spawns-process', module: the imported specifier }
 */
import type { Oracle } from '../../src/confirm/oracle-kit.js';

const oracle: Oracle = {
  id: 'bundle-spawns-process',
  async plan(ctx) {
    const name = typeof ctx.control.module === 'string' ? `\`${ctx.control.module}\`` : undefined;
    const what =
      ctx.finding.messageId === 'dynamicImport'
        ? `the bundle imports a module by a computed name (${name ?? 'an expression'}), which can load a process-spawning module unseen`
        : `the bundle imports ${name ?? 'a process-spawning module'}, which starts processes the host does not own (no declared tool, pinning, isolation or run record), whatever the check returns`;
    return {
      status: 'unsupported',
      detail:
        `no run can show a verdict here: ${what}; under the host a spawn is refused (Node's permission model). ` +
        'Run the tool through `runtime.tools.run` with a toolId in the check\'s `requiredTools`, and import modules by literal name',
    };
  },
};
export default oracle;
