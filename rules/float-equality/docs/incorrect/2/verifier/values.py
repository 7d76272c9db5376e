def check(result):
    return float(result) == 0.3  # vaudit-expect: float-equality/literal
