import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'py-cases',
  artifact: { files: ['solve.py'] },
  publicInput: { fields: ['cases'] },
  checks: [{
    id: 'runs', kind: 'external', requiredTools: ['python3'],
    async evaluate({ artifact, publicInput }, runtime) {
      if (publicInput.cases.length === 0) return { verdict: 'fail', detail: 'no case to run' };
      for (const c of publicInput.cases) {
        const r = await runtime.tools.run({ toolId: 'python3', checkId: 'runs', args: ['solve.py'], files: { 'solve.py': artifact.files['solve.py'] }, stdin: c.stdin });
        if (r.outcome !== 'executed') return r;
        if (r.exitCode !== 0 || r.stdout.trim() !== c.expected) return { verdict: 'fail' };
      }
      return { verdict: 'pass' };
    },
  }],
});
