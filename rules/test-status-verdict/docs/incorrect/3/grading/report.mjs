export function resolved(statuses, failToPass) {
  // vaudit-expect: test-status-verdict/jsAbsentAsPass
  return failToPass.every((name) => !(name in statuses) || statuses[name] === 'passed');
}

export function allGreen(statuses) {
  // vaudit-expect: test-status-verdict/jsEmptyMap
  return Object.values(statuses).every((s) => s === 'passed');
}
