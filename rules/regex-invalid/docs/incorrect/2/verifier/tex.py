import re

WARNING = re.compile(r"LaTeX Warning: (?<kind>\w+)")  # vaudit-expect: regex-invalid/invalid
