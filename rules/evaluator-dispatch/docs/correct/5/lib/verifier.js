const fs = require('node:fs');

class Verifier {
  check_file_contains(spec) {
    return fs.readFileSync(spec.file, 'utf8').includes(spec.text);
  }

  check_file_exists(spec) {
    return fs.existsSync(spec.file);
  }

  verify(task) {
    return this['check_' + task.verify.type](task.verify);
  }
}

function main(specPath) {
  const { tasks } = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  const v = new Verifier();
  return tasks.map((t) => v.verify(t));
}

module.exports = { main };
