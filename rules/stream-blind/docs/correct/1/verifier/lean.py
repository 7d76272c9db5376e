import subprocess


def check(project):
    r = subprocess.run(["lake", "build"], cwd=project, capture_output=True, text=True, timeout=300)
    return r.returncode == 0 and "sorry" not in r.stdout + r.stderr
