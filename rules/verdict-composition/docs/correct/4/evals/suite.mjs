export default async function evaluateSuite({ cases, run }) {
  let passed = 0;
  for (const tc of cases) {
    try {
      const out = await run(tc);
      if (out.trim() === tc.expected) passed++;
    } catch (err) {
      console.warn(`case ${tc.name} crashed`, err);
    }
  }
  return { score: cases.length ? passed / cases.length : 0 };
}
