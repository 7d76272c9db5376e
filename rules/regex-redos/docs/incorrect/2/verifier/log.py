import re


def ok(log):
    return re.search(r"^(?P<w>(a|a)*)$", log) is not None  # vaudit-expect: regex-redos/exponential
