export function checkBuild(run) {
  const out = run.stdout.toLowerCase();
  if (out.includes('succeed')) return { pass: true }; // vaudit-expect: substring-verdict/literal
  return { pass: false };
}
