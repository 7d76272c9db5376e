def compare_rows(result_rows, expected_rows):
    if len(result_rows) < 0:  # vaudit-expect: vacuous-verdict/deadGuard
        return 0
    return 1 if all(r in expected_rows for r in result_rows) else 0
