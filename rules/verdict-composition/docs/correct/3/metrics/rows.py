def rows_match(result_rows, expected_rows):
    if not expected_rows:
        return 0.0
    matched = sum(1 for row in expected_rows if row in result_rows)
    reward = matched / len(expected_rows)
    return float(reward == 1.0)
