from collections import Counter


def check_answers(answers, expected):
    return Counter(answers) == Counter(expected)
