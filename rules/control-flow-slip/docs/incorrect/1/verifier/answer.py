def final_answer_matches(answer, infeasible, expected):
    last = ""
    if answer:
        last = answer.strip().lower()  # vaudit-expect: control-flow-slip/overwritten
    if infeasible:
        last = "infeasible"
    else:
        last = ""
    return last == expected
