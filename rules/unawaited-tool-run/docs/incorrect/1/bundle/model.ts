import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'py-cases',
  artifact: { files: ['solve.py'] },
  publicInput: { fields: ['cases'] },
  checks: [{
    id: 'runs', kind: 'external', requiredTools: ['python3'],
    async evaluate({ artifact, publicInput }, runtime) {
      let failed = false;
      publicInput.cases.forEach(async (c: { stdin: string }) => {
        const r = await runtime.tools.run({ toolId: 'python3', checkId: 'runs', args: ['solve.py'], // vaudit-expect: unawaited-tool-run/unawaited
          files: { 'solve.py': artifact.files['solve.py'] }, stdin: c.stdin });
        if (r.outcome !== 'executed' || r.exitCode !== 0) failed = true;
      });
      return { verdict: failed ? 'fail' : 'pass' };
    },
  }],
});
