export default function finalAnswer({ answer, infeasible, expected }) {
  let last = '';
  if (answer) {
    // vaudit-expect: control-flow-slip/jsOverwritten
    last = answer.trim().toLowerCase();
  }
  if (infeasible) {
    last = 'infeasible';
  } else {
    last = '';
  }
  return { _success: last === expected };
}
