def check(item, states):
    keys = []
    if item.get("find"):
        keys = [k for k in states if k.endswith(item["find"])]
    return all(k not in states for k in keys)
