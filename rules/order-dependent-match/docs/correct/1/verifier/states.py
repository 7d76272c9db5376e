def check(item, states):
    find = eval(item["find"])
    candidates = [value for key, value in states.items() if find(key, value)]
    return any(value == item["value"] for value in candidates)
