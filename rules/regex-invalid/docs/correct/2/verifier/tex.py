import re

WARNING = re.compile(r"LaTeX Warning: (?P<kind>\w+)", re.M)
VERBOSE = re.compile(r"""
  (\d+)   # count
  \s+atoms
""", re.X)
