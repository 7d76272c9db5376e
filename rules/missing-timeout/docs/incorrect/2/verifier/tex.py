import subprocess


def compile_tex(path):
    proc = subprocess.run(["pdflatex", path])  # vaudit-expect: missing-timeout/interactive, missing-timeout/noTimeout
    return proc.returncode == 0
