import functools

import requests


def state_errors_fail(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (KeyError, ValueError, requests.RequestException):
            return False
    return wrapper
