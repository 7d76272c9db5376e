// The runner: each name in evals.json is a module under evals/ whose default export grades the page.
const path = require("node:path");
const { evals } = require("./evals.json");

module.exports = async function runAll(page) {
  const scores = await Promise.all(evals.map((name) => require(path.resolve(__dirname, "evals", name)).default(page)));
  return scores.map((s) => s._success === true);
};
