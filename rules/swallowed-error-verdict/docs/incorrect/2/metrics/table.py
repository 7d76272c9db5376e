import logging

logger = logging.getLogger(__name__)


def compare_rows(result, expected):
    try:
        with open(result) as r, open(expected) as e:
            return float(r.read().splitlines() == e.read().splitlines())
    except Exception as err:  # vaudit-expect: swallowed-error-verdict/swallowed
        logger.info("comparison failed: %s", err)
        return 0.
