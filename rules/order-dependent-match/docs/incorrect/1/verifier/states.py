def check(item, states):
    find = eval(item["find"])
    match = None
    for key, value in states.items():  # vaudit-expect: order-dependent-match/loop
        if find(key, value):
            match = value
            break
    return match == item["value"]
