import requests


def fetch_states(url):
    reply = requests.get(url, timeout=10)
    return reply.json()  # vaudit-expect: unguarded-state-read/unguarded
