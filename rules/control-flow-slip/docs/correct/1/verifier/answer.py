def final_answer_matches(answer, infeasible, expected):
    last = ""
    if answer:
        last = answer.strip().lower()
    elif infeasible:
        last = "infeasible"
    return last == expected
