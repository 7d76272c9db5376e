export default function grade(report) {
  const results = report.testResults.flatMap((f) => f.assertionResults);
  const ran = results.filter((r) => r.status !== 'skipped');
  // vaudit-expect: test-status-verdict/jsDropped
  return ran.length > 0 && ran.every((r) => r.status === 'passed');
}
