import json
from pathlib import Path

GOLD = Path(__file__).parent / "gold" / "expected_rows.json"


def rows_exported(rows):
    expected = json.loads(GOLD.read_text(encoding="utf-8"))
    return 1.0 if rows == expected else 0.0
