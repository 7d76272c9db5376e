export function resolved(statuses, failToPass) {
  return failToPass.length > 0 && failToPass.every((name) => statuses[name] === 'passed');
}

export function allGreen(statuses, required) {
  return required.length > 0 && required.every((name) => statuses[name] === 'passed');
}
