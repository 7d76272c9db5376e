import sqlite3
import subprocess


def order_shipped(db_path, order_id):
    conn = sqlite3.connect(db_path)
    row = conn.execute("SELECT status FROM orders WHERE id = ?", (order_id,)).fetchone()
    return row is not None and row[0] == "shipped"


def queue_empty():
    out = subprocess.run(["mailq"], capture_output=True, text=True, timeout=10).stdout
    words = out.split()
    if len(words) > 2:
        return words[2] == "empty"
    return False
