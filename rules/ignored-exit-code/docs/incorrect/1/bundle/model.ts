import { defineCorrectnessModel } from 'vaudit/bundle';
export default defineCorrectnessModel({
  id: 'c-hello',
  artifact: { files: ['main.c'] },
  checks: [{
    id: 'compiles', kind: 'external', requiredTools: ['gcc'],
    async evaluate({ artifact }, runtime) {
      await runtime.tools.run({ toolId: 'gcc', checkId: 'compiles', args: ['-c', 'main.c'], files: { 'main.c': artifact.files['main.c'] } }); // vaudit-expect: ignored-exit-code/discarded
      return { verdict: 'pass' };
    },
  }],
});
