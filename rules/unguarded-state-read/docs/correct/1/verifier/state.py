import requests


def fetch_states(url):
    try:
        reply = requests.get(url, timeout=10)
        return reply.json()
    except (requests.RequestException, ValueError):
        return None
