def resolved(required_tests, status_map):
    return bool(required_tests) and all(status_map.get(t) == "PASSED" for t in required_tests)
