import datetime
import logging


def check_log(text, started_at):
    logging.info("graded at %s", datetime.datetime.now())
    return started_at.date().isoformat() in text
