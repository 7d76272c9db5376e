from .utils import error_factory


@error_factory(False)
def check(item, states):
    if item.get("find"):
        keys = [k for k in states if k.endswith(item["find"])]
    return all(k not in states for k in keys)  # vaudit-expect: unbound-name/swallowed
