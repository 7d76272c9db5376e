def check_answer(page_text: str) -> bool:
    return "Canada" in page_text  # vaudit-expect: substring-verdict/literal
