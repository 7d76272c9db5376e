/**
 * Small text edits of JavaScript/TypeScript source that fixes are made of (offsets of the acorn nodes,
 * which the TypeScript blanking keeps).
 */
import type { CallExpression } from 'acorn';
import type { OffsetEdit } from '../../core/types.js';

/**
 * The edit that gives `fetch(url[, init])` the property `prop` (`signal: AbortSignal.timeout(60000)`):
 * a second argument when there is none, else a first property of the init object literal. Undefined
 * when the init is not an object literal (a variable: its other uses are unknown) or spreads another.
 */
export function fetchInitPropertyEdit(text: string, call: CallExpression, prop: string): OffsetEdit | undefined {
  const [url, init] = call.arguments;
  if (!url || call.arguments.length > 2) return undefined;
  if (!init) return { start: url.end, end: url.end, newText: `, { ${prop} }` };
  if (init.type !== 'ObjectExpression' || init.properties.some((p) => p.type === 'SpreadElement')) return undefined;
  const first = init.properties[0];
  if (!first) return { start: init.start, end: init.end, newText: `{ ${prop} }` };
  const before = text.slice(init.start + 1, first.start);
  if (before.includes('/')) return undefined; // a comment before the first property
  const nl = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r'));
  // one property per line: the new one gets a line of its own, indented as the first
  const sep = nl >= 0 ? `${/\r\n|\r|\n/.exec(before)![0]}${before.slice(nl + 1)}` : ' ';
  return { start: first.start, end: first.start, newText: `${prop},${sep}` };
}
