export default function finalAnswer({ answer, infeasible, expected }) {
  let last = '';
  if (answer) {
    last = answer.trim().toLowerCase();
  } else if (infeasible) {
    last = 'infeasible';
  }
  return { _success: last === expected };
}
