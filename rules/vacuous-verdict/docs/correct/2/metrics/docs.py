def compare_lines(result_lines, expected_lines):
    if len(result_lines) != len(expected_lines):
        return 0
    for got, want in zip(result_lines, expected_lines):
        if got.strip() != want.strip():
            return 0
    return 1
