import requests


def first_order_total(base, expected):
    try:
        rows = requests.get(f"{base}/api/orders", timeout=5).json()["orders"]
    except (requests.RequestException, ValueError):
        return False
    if not any(r["status"] == "paid" for r in rows):
        return False
    return rows[0]["total"] == expected
