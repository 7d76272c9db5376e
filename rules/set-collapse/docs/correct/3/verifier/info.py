from collections import Counter


def check_info(item, log):
    return sorted(log.splitlines()) == sorted(item["value"]) or Counter(log.splitlines()) == Counter(item["value"])
