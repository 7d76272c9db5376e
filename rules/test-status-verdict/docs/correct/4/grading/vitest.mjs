export default function grade(report, required) {
  const statuses = new Map(report.testResults.flatMap((f) => f.assertionResults).map((r) => [r.fullName, r.status]));
  return required.length > 0 && required.every((name) => statuses.get(name) === 'passed');
}
