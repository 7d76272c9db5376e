def exit_code(job, result):
    return result.returncode == job["expected_exit"]


def stdout_has(job, result):
    return all(word in result.stdout for word in job["expected_words"])


CHECKS = {"exit_code": exit_code, "stdout_has": stdout_has}


def check_job(job, result):
    return CHECKS[job["check"]](job, result)
