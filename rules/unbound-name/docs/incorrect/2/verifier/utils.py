def error_factory(default):
    def deco(fn):
        def wrapper(*a, **k):
            try:
                return fn(*a, **k)
            except Exception:
                return default
        return wrapper
    return deco
