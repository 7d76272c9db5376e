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
    path = download_export(host)
    if path is None:
        return False
    return len(pd.read_csv(path)) == 12
