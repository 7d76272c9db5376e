import json

import anthropic


def unachievable_reason_matches(reason, report):
    msg = anthropic.Anthropic().messages.create(
        model="claude-sonnet-4-5",
        max_tokens=256,
        messages=[{"role": "user", "content": f'Reason: {reason}\nReport: {report}\nAnswer as JSON: {{"verdict": "same" | "different"}}'}],
    )
    try:
        verdict = json.loads(msg.content[0].text)["verdict"]
    except (ValueError, KeyError, TypeError):
        return 0.0
    return 1.0 if verdict == "same" else 0.0
