import subprocess


def compile_tex(path):
    try:
        proc = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=180,
        )
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0
