from openai import OpenAI

client = OpenAI()


def judge_answer(question, reference, answer):
    prompt = (
        f"Question: {question}\nReference: {reference}\nAnswer: {answer}\n"
        "Reply with exactly one word: correct, incorrect or partially_correct."
    )
    resp = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}], timeout=60)
    reply = resp.choices[0].message.content.strip().lower()
    return 1.0 if reply == "correct" else 0.0
