/**
 * Answers the rules and the suite checks ask again and again of one function, kept instead of walked
 * again (issue 32: a cold check walked a verifier module once per question): the calls by name
 * `llmReply` reads for a parameter's arguments, `noneReturn` per function and `agentOnly`. Each must
 * answer what the walk answered, in the order the walk met the calls, and per analysis: an editor's
 * next analysis of the same file answers for its own text.
 */
import { describe, expect, it } from 'vitest';
import { analysePython } from '../src/lang/python/project.js';
import { llmReply } from '../src/lang/python/llm-reply.js';
import { noneReturn } from '../src/lang/python/state-reads.js';
import { walk, type PyNode } from '../src/lang/python/tree.js';
import type { PythonAnalysis } from '../src/lang/python/types.js';

/** The `n`-th read of `name` in the module (0: the first). */
function readOf(a: PythonAnalysis, name: string, n = 0): PyNode {
  const hits: PyNode[] = [];
  walk(a.ast, (x) => {
    if (x.type === 'identifier' && a.src(x) === name && x.parent?.type !== 'parameters') hits.push(x);
  });
  return hits[n]!;
}

const JUDGE = `from langchain_openai import ChatOpenAI

llm = ChatOpenAI(model="gpt-4o")


def parse_verdict(reply):
    return "yes" in reply.lower()


def check(source):
    first = parse_verdict("no judge here")
    out = llm.invoke(f"Is it right? {source}")
    return first and log(parse_verdict(out.content))
`;

describe('llmReply: the calls that hand a parameter its value', () => {
  it('looks past a call whose argument is no reply, to a later call nested in another', async () => {
    const a = await analysePython(JUDGE, '/p/judge.py');
    const call = llmReply(a, readOf(a, 'reply'));
    expect(call && a.src(call)).toBe('llm.invoke(f"Is it right? {source}")');
    // asked again (the index is built once): the same answer
    expect(llmReply(a, readOf(a, 'reply'))).toBe(call);
  });

  it('finds none when no call passes a reply, and answers for the text of its own analysis', async () => {
    const a = await analysePython(JUDGE.replace('parse_verdict(out.content)', 'parse_verdict(source)'), '/p/judge.py');
    expect(llmReply(a, readOf(a, 'reply'))).toBeUndefined();
    const b = await analysePython(JUDGE, '/p/judge.py');
    expect(llmReply(b, readOf(b, 'reply'))).toBeDefined();
  });
});

const GETTER = `import json


def read_state(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def read_config(path):
    if not path:
        return None
    return {"path": path}
`;

describe('noneReturn: kept per function and per agentOnly', () => {
  it('a None returned only from a handler counts unless agentOnly, whichever is asked first', async () => {
    for (const order of [[false, true], [true, false]]) {
      const a = await analysePython(GETTER, '/p/getters.py');
      const fn = a.functionByQualname('read_state')!.node;
      const got = order.map((agentOnly) => noneReturn(a, fn, agentOnly));
      const [plain, agent] = order[0] ? [got[1], got[0]] : got;
      expect(plain && a.line(plain)).toBe(9);
      expect(agent).toBeUndefined();
    }
  });

  it('a None on a path of its own counts either way, and each analysis answers for its text', async () => {
    const a = await analysePython(GETTER, '/p/getters.py');
    const fn = a.functionByQualname('read_config')!.node;
    expect(a.line(noneReturn(a, fn)!)).toBe(14);
    expect(a.line(noneReturn(a, fn, true)!)).toBe(14);
    const b = await analysePython(GETTER.replace('        return None\n    return {', '        return {}\n    return {'), '/p/getters.py');
    expect(noneReturn(b, b.functionByQualname('read_config')!.node)).toBeUndefined();
  });
});
