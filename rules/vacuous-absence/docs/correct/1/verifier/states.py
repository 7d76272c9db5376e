def check_absent(item, states):
    raw_key = item["key"]
    if raw_key.startswith("lambda"):
        raw_key = eval(raw_key)(item["find"])
    if item.get("value") is None:
        return raw_key not in states
    return states.get(raw_key) == item["value"]
