import json


def grade(report_path):
    with open(report_path) as f:
        tests = json.load(f)["tests"]
    ran = [t for t in tests if t["outcome"] != "error"]
    passed = sum(1 for t in ran if t["outcome"] == "passed")
    return passed / len(ran)  # vaudit-expect: verdict-composition/droppedFiltered
