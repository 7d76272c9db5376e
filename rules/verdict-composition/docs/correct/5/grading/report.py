import json


def grade(report_path):
    with open(report_path) as f:
        tests = json.load(f)["tests"]
    passed = sum(1 for t in tests if t["outcome"] == "passed")
    return passed / len(tests)
