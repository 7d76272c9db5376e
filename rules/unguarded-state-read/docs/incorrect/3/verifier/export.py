import pandas as pd
import requests


def download_export(host):
    reply = requests.get(f"http://{host}/export.csv", timeout=30)
    if reply.status_code != 200:
        return None
    with open("/tmp/export.csv", "wb") as fh:
        fh.write(reply.content)
    return "/tmp/export.csv"


def rows_exported(host):
    table = pd.read_csv(download_export(host))  # vaudit-expect: unguarded-state-read/noneOpen
    return len(table) == 12
