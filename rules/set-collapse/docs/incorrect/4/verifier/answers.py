def check_answers(answers, expected):
    if len(answers) != len(expected):
        return False
    return all(any(a == e for e in expected) for a in answers)  # vaudit-expect: set-collapse/anyMatch
