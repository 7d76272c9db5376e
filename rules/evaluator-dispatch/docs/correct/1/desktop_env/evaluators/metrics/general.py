import os


def check_include_exclude(result, rules):
    if result is None:
        return 0.0
    ok = all(r in result for r in rules["include"]) and not any(r in result for r in rules["exclude"])
    return float(ok)


def check_file_existence(result):
    return float(result is not None and os.path.exists(result))
