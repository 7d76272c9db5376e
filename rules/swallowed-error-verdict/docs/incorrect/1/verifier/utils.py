import functools


def error_factory(default):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except Exception:  # vaudit-expect: swallowed-error-verdict/swallowed
                return default
        return wrapper
    return decorator
