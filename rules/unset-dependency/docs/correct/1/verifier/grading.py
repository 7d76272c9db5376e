def grade(answer, reference, judge=None):
    if judge is None:
        return answer.strip().lower() == reference.strip().lower()
    return judge.ask(f"Does '{answer}' mean '{reference}'? Answer yes or no.") == "yes"


def grade_all(items, judge):
    return [grade(i["answer"], i["reference"], judge) for i in items]
