import json
import subprocess


def bookmark_titles(profile):
    out = subprocess.run(["cat", f"{profile}/Bookmarks"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    bar = json.loads(out.stdout)["roots"]["bookmark_bar"]["children"]
    return [b["name"] for b in bar]


def docs_bookmarked(profile):
    titles = bookmark_titles(profile)
    return "Python docs" in titles  # vaudit-expect: unguarded-state-read/noneUse
