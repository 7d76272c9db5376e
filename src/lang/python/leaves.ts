import type { PythonAnalysis } from './types.js';
import { field, named, unparen, type PyNode } from './tree.js';

/** Where a block's control goes when it never reaches its end: out of the function (`return`, `raise`, a
 *  call that never returns) or out of the enclosing loop's pass (`continue`, `break`). */
export type Leave = 'function' | 'loop';

/**
 * How the block is left, when no path through it reaches its end: the first statement that leaves on
 * every path decides (what follows it never runs). A statement leaves when it is `return`/`raise`
 * (the function), `continue`/`break` (the loop), a call that never returns (`sys.exit`, `pytest.fail`,
 * unittest's `self.fail`, a project helper whose every path raises: `isNoReturnCall`), a `with` whose
 * body leaves, or an `if` with an `else` whose branches all leave (the function when every branch does,
 * else the loop). `undefined` when some path can reach the end.
 */
export function blockLeaves(a: PythonAnalysis, block: PyNode | undefined | null): Leave | undefined {
  if (!block) return undefined;
  for (const s of named(block)) {
    const way = statementLeaves(a, s);
    if (way) return way;
  }
  return undefined;
}

function statementLeaves(a: PythonAnalysis, s: PyNode): Leave | undefined {
  switch (s.type) {
    case 'return_statement':
    case 'raise_statement':
      return 'function';
    case 'continue_statement':
    case 'break_statement':
      return 'loop';
    case 'expression_statement': {
      const first = named(s)[0];
      const call = first && unparen(first);
      return call?.type === 'call' && a.isNoReturnCall(call, a.scopeOf(call)) ? 'function' : undefined;
    }
    case 'with_statement':
      return blockLeaves(a, field(s, 'body'));
    case 'if_statement': {
      const alts = named(s).filter((k) => k.type === 'elif_clause' || k.type === 'else_clause');
      if (!alts.some((k) => k.type === 'else_clause')) return undefined;
      const ways = [blockLeaves(a, field(s, 'consequence')), ...alts.map((k) => blockLeaves(a, field(k, 'consequence') ?? field(k, 'body')))];
      if (ways.some((w) => !w)) return undefined;
      return ways.every((w) => w === 'function') ? 'function' : 'loop';
    }
    default:
      return undefined;
  }
}

/** The block never reaches its end and leaves the function (not only the loop's pass). */
export const leavesFunction = (a: PythonAnalysis, block: PyNode | undefined | null): boolean => blockLeaves(a, block) === 'function';
