PASSED, FAILED, SKIPPED, XFAIL = "PASSED", "FAILED", "SKIPPED", "XFAIL"


def test_passed(case, status_map):
    return case in status_map and status_map[case] == PASSED
