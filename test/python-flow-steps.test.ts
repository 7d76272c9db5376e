/**
 * The work of the flow analysis on nested loops (issue 30, item 5), counted in the steps its budget
 * counts (`lastFlowSteps`: map nodes made or visited), not in time. A join that added nothing to the
 * first state's definitions of a name copied them into a new set anyway; the copy broke the sharing of
 * that name with the first state, and every later join or comparison against it visited the name again.
 * Loops each holding a `try` joined the names bound by every loop inside them on each run: the steps grew
 * with the cube of the depth. Then each run of such a loop compared its entry with the kept runs' entries
 * by walking them (same definitions, in sets and nodes made apart), until the states' content digests
 * ruled most of them out without a walk: the steps now grow with the square of the depth (the loop runs).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analysePython } from '../src/lang/python/project.js';
import { lastFlowSteps } from '../src/lang/python/flow/state.js';

const { SHAPES } = (await import(pathToFileURL(path.resolve(import.meta.dirname, '../bench/hostile-shapes.mjs')).href)) as {
  SHAPES: Record<string, { files(n: number): Record<string, string> }>;
};

async function flowOf(shape: string, depth: number): Promise<{ steps: number; unbound: string[] }> {
  const text = Object.values(SHAPES[shape]!.files(depth))[0]!;
  const a = await analysePython(text, 'shape.py');
  void a.flow;
  const steps = lastFlowSteps();
  return { steps, unbound: a.unboundReads().map((u) => `${u.kind} ${u.name}`) };
}

describe('flow analysis steps on nested loops', () => {
  // bounds about 1.5× the steps taken now (18,954 and 78,195); the old joins took 179,790 and 1,666,873,
  // the walks over the kept runs' entries 83,492 and 793,304
  it('24 loops each holding a try: under 28,000 steps, and the read may be unbound', async () => {
    const r = await flowOf('py-nested-loops-try', 24);
    expect(r.unbound).toEqual(['maybe y']);
    expect(r.steps).toBeLessThan(28_000);
  });

  it('48 loops each holding a try: under 120,000 steps, and the read may be unbound', async () => {
    const r = await flowOf('py-nested-loops-try', 48);
    expect(r.unbound).toEqual(['maybe y']);
    expect(r.steps).toBeLessThan(120_000);
  });

  // 7,602 now; the old joins took 17,644
  it('40 nested loops: under 12,000 steps, and the read may be unbound', async () => {
    const r = await flowOf('py-nested-loops', 40);
    expect(r.unbound).toEqual(['maybe y']);
    expect(r.steps).toBeLessThan(12_000);
  });
});
