import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'py-cases',
  artifact: { files: ['solve.py'] },
  publicInput: { fields: ['cases'] },
  checks: [{
    id: 'runs', kind: 'external', requiredTools: ['python3'],
    async evaluate({ artifact, publicInput }, runtime) {
      const runs = await Promise.all(publicInput.cases.map((c: { stdin: string }) => runtime.tools.run({ toolId: 'python3', checkId: 'runs',
        args: ['solve.py'], files: { 'solve.py': artifact.files['solve.py'] }, stdin: c.stdin })));
      for (const r of runs) if (r.outcome !== 'executed') return r;
      return { verdict: runs.every((r) => r.outcome === 'executed' && r.exitCode === 0) ? 'pass' : 'fail' };
    },
  }],
});
