import math


def check(result):
    return math.isclose(float(result), 0.3, abs_tol=1e-9) or int(result) == 3
