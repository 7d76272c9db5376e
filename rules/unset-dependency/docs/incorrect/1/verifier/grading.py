def grade(answer, reference, judge=None):  # vaudit-expect: unset-dependency/unset
    return judge.ask(f"Does '{answer}' mean '{reference}'? Answer yes or no.") == "yes"


def grade_all(items):
    return [grade(i["answer"], i["reference"]) for i in items]
