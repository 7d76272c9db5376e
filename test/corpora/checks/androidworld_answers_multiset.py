"""androidworld check_agent_answer (task_evals/information_retrieval/proto_utils.py), run in place with its real
_check_match_types, _cast_answers_to_type and fuzzy_match: a STRING_MATCH task whose expected answer is two
distinct field values (get_expected_answer returns `list(field_values)` for STRING_MATCH, line 211; stubbed
here to return them) and a NUMBER_MATCH one. The agent's answer repeats one expected value and omits the other.

    python3 test/corpora/checks/androidworld_answers_multiset.py
"""
import datetime
import types

from _corpus import function, suite

AW = suite("androidworld")
PU = "android_world/task_evals/information_retrieval/proto_utils.py"


class MatchType:
    STRING_MATCH, NUMBER_MATCH, DATE_MATCH, TIME_MATCH = 1, 2, 3, 4

    @staticmethod
    def Name(v):
        return {1: "STRING_MATCH", 2: "NUMBER_MATCH", 3: "DATE_MATCH", 4: "TIME_MATCH"}[v]


task_pb2 = types.SimpleNamespace(Expectation=types.SimpleNamespace(MatchType=MatchType), Task=object)
fuzzy = function(AW, "android_world/utils/fuzzy_match_lib.py", "fuzzy_match", {"difflib": __import__("difflib"), "_MIN_DIFF_SIMILARITY": 0.9})  # the module constant, line 21
ns = {"task_pb2": task_pb2, "ExpectedAnswer": object, "datetime": datetime, "fuzzy_match_lib": types.SimpleNamespace(fuzzy_match=fuzzy)}
function(AW, PU, "_check_match_types", ns)
function(AW, PU, "_cast_answers_to_type", ns)
check = function(AW, PU, "check_agent_answer", ns)


def task(match_type, expected):
    exp = types.SimpleNamespace(match_type=match_type, HasField=lambda f: False)
    ns["get_expected_answer"] = lambda t: list(expected)
    return types.SimpleNamespace(success_criteria=types.SimpleNamespace(expectations=[exp]))


for mt, expected, answers in (
    (MatchType.STRING_MATCH, ["Team sync", "Dentist appointment"], ["Team sync, Dentist appointment", "Team sync, Team sync", "Team sync"]),
    (MatchType.NUMBER_MATCH, [3.0, 5.0], ["3, 5", "3, 3"]),
):
    t = task(mt, expected)
    print(f"{MatchType.Name(mt)} expected {expected}: " + "; ".join(f"{a!r} -> {check(a, t)}" for a in answers))
