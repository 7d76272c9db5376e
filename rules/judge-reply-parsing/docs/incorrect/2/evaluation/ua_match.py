import anthropic


def unachievable_reason_matches(reason, report):
    msg = anthropic.Anthropic().messages.create(
        model="claude-sonnet-4-5",
        max_tokens=256,
        messages=[{"role": "user", "content": f"Reason: {reason}\nReport: {report}\nAnswer same or different."}],
    )
    text = msg.content[0].text.lower()
    if "different" in text:
        return 0.0
    assert "same" in text  # vaudit-expect: judge-reply-parsing/assertedWord
    return 1.0
