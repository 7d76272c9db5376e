import re


def check_answer(page_text: str) -> bool:
    return re.search(r"\bCanada\b", page_text) is not None and "not Canada" not in page_text
