class KAlgebraMixin:
    def _eval_val(self, eval_item, current_states):
        return float(current_states["result"]) == eval_item["value"]
