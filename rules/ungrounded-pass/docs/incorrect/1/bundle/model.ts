import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'py-cases',
  artifact: { files: ['solve.py'] },
  publicInput: { fields: ['cases'] },
  checks: [{
    id: 'runs', kind: 'external', requiredTools: ['python3'],
    async evaluate({ artifact, publicInput }, runtime) {
      if (!artifact.files['solve.py'].includes('def ')) return { verdict: 'fail' };
      if (artifact.files['solve.py'].includes('print(')) return { verdict: 'pass' }; // vaudit-expect: ungrounded-pass/ungrounded
      const r = await runtime.tools.run({ toolId: 'python3', checkId: 'runs', args: ['solve.py'], files: { 'solve.py': artifact.files['solve.py'] } });
      if (r.outcome !== 'executed') return r;
      return { verdict: r.exitCode === 0 ? 'pass' : 'fail' };
    },
  }],
});
