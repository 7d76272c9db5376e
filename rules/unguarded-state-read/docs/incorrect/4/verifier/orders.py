import sqlite3
import subprocess


def order_shipped(db_path, order_id):
    conn = sqlite3.connect(db_path)
    cur = conn.execute("SELECT status FROM orders WHERE id = ?", (order_id,))
    return cur.fetchone()[0] == "shipped"  # vaudit-expect: unguarded-state-read/noRow


def queue_empty():
    out = subprocess.run(["mailq"], capture_output=True, text=True, timeout=10).stdout
    words = out.split()
    if len(words) > 0:
        return words[2] == "empty"  # vaudit-expect: unguarded-state-read/shortRead
    return False
