def compare_lines(result_lines, expected_lines):
    for got, want in zip(result_lines, expected_lines):  # vaudit-expect: vacuous-verdict/zipTruncation
        if got.strip() != want.strip():
            return 0
    return 1
