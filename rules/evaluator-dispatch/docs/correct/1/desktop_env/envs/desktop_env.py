from desktop_env.evaluators import metrics, getters


class DesktopEnv:
    def load(self, evaluator):
        self.metric = getattr(metrics, evaluator["func"])
        self.result_getter = getattr(getters, "get_{:}".format(evaluator["result"]["type"]))
        exp = evaluator.get("expected")
        self.expected_getter = getattr(getters, "get_{:}".format(exp["type"])) if exp else None

    def evaluate(self, evaluator):
        result_state = self.result_getter(self, evaluator["result"])
        options = evaluator.get("options", {})
        if self.expected_getter is None:
            return self.metric(result_state, **options)
        expected_state = self.expected_getter(self, evaluator["expected"])
        return self.metric(result_state, expected_state, **options)
