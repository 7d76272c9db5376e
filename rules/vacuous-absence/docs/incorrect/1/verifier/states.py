def check_absent(item, states):
    raw_key = None
    if item["key"].startswith("lambda"):
        transform = eval(item["key"])
        raw_key = transform(item["find"])
    if item.get("value") is None:
        return raw_key not in states  # vaudit-expect: vacuous-absence/vacuous
    return states.get(raw_key) == item["value"]
