def resolved(required_tests, status_map):
    return all(
        t not in status_map or status_map[t] == "PASSED"  # vaudit-expect: test-status-verdict/absentAsPass
        for t in required_tests
    )
