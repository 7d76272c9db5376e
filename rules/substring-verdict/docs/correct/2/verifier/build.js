export function checkBuild(run) {
  const last = run.stdout.trim().split('\n').pop();
  return { pass: last === 'BUILD SUCCEEDED' };
}
