from openai import OpenAI

client = OpenAI()


def judge_answer(question, reference, answer):
    prompt = (
        f"Question: {question}\nReference: {reference}\nAnswer: {answer}\n"
        "Reply with correct, incorrect or partially correct."
    )
    resp = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}], timeout=60)
    reply = resp.choices[0].message.content.lower()
    return 1.0 if "correct" in reply else 0.0  # vaudit-expect: judge-reply-parsing/containsVerdict
