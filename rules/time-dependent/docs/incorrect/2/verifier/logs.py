import datetime


def check_log(text):
    today = datetime.date.today().isoformat()  # stored, used below
    return datetime.date.today().isoformat() in text  # vaudit-expect: time-dependent/verdict
