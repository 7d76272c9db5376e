def check_info(item, log):
    got = set(log.splitlines())
    return got == set(item["value"])  # vaudit-expect: set-collapse/collapse
