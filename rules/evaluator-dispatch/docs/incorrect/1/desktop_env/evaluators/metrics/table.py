def compare_table(result, expected=None, **options):
    rules = options.get("rules", [])
    if result is None:
        return 0.0
    with open(result) as r, open(expected) as e:
        ok = r.read() == e.read()
    return 1.0 if ok and not rules else float(ok)


def compare_csv(result, expected, strict=True):
    with open(result) as r, open(expected) as e:
        a, b = r.read(), e.read()
    return float(a == b if strict else a.strip() == b.strip())
