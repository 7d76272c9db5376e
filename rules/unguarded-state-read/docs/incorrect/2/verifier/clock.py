import re
import subprocess


def utc_offset(timeout=10):
    out = subprocess.run(["timedatectl"], capture_output=True, text=True, timeout=timeout).stdout
    zone = out.split("Time zone:")[1]  # vaudit-expect: unguarded-state-read/shortRead
    return re.search(r"\(\w+, ([+-]\d{4})\)", zone).group(1)  # vaudit-expect: unguarded-state-read/noMatch
