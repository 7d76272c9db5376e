/**
 * What a shell script prints, read from its text: used by the Python and JavaScript value-origin
 * analyses to tell a program whose output is one of a few literals from one that may print anything.
 */

/** What the value-origin analyses put in a script's text for an interpolated value (`${x}`, `{x}`). */
export const INTERPOLATION = '\uE000';

/** A test header (`if [ … ]; then`, `elif [[ … ]]`, `if test …`): runs no command that prints. */
const TEST_HEADER = /^(if|elif)\s+(?:\[\[?|test\b|!\s*\[)[^;`]*?(?:\]\]?)?\s*(?:;\s*then)?$/;
const ECHO = /^(?:echo|printf)\s+(?:"([^"$`\\\uE000]*)"|'([^'\uE000]*)'|([A-Za-z0-9_.,:!? -]*[A-Za-z0-9_.!?]))$/;

/**
 * What a shell script prints, when it prints one literal or nothing on every path: an `if`/`elif`/`else`
 * chain of `[ … ]` tests (interpolated values allowed there) whose branches each `echo`/`printf` at most
 * one literal, or one literal echo alone. Undefined for anything else: another command (it may print
 * anything), a loop, a nested test, or two echoes on one path (their output is concatenated).
 */
export function shellLiteralOutputs(script: string): string[] | undefined {
  // statements: one per line or `;`, with `then`/`else` split from the command that follows them
  const lines = script
    .split(/[\n;]/)
    .flatMap((l) => { const t = l.trim(); const m = /^(then|else)\s+(.+)$/.exec(t); return m ? [m[1]!, m[2]!] : [t]; })
    .filter((l) => l && !l.startsWith('#'));
  const outputs = new Set<string>();
  let inIf = false;
  let branch: string | undefined | null = null; // null: no branch open; undefined: open, nothing printed yet
  let hasElse = false;
  let echoes = 0;
  let chains = 0;
  const close = () => { if (branch !== null) outputs.add(branch ?? ''); branch = null; };
  for (const line of lines) {
    const echo = ECHO.exec(line);
    if (echo) {
      const text = echo[1] ?? echo[2] ?? echo[3] ?? '';
      const printed = line.startsWith('printf') ? text : `${text}\n`;
      echoes++;
      if (!inIf) {
        if (lines.length !== 1) return undefined;
        return [printed];
      }
      if (branch === null || branch !== undefined) return undefined;
      branch = printed;
      continue;
    }
    const head = TEST_HEADER.exec(line);
    if (head) {
      if ((head[1] === 'if') === inIf) return undefined; // a nested if, or an elif outside one
      if (head[1] === 'if' && ++chains > 1) return undefined; // a second chain: its output follows the first's
      close();
      inIf = true;
      branch = undefined;
      continue;
    }
    if (line === 'then') continue;
    if (line === 'else') {
      if (!inIf || hasElse) return undefined;
      close();
      hasElse = true;
      branch = undefined;
      continue;
    }
    if (line === 'fi') {
      if (!inIf) return undefined;
      close();
      if (!hasElse) outputs.add('');
      inIf = false;
      hasElse = false;
      continue;
    }
    return undefined;
  }
  if (inIf || echoes === 0) return undefined;
  return [...outputs];
}
