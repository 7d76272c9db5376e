import json

from openai import OpenAI

client = OpenAI()


def assertions_hold(transcript, assertions):
    prompt = f"Transcript:\n{transcript}\nFor each assertion in {assertions} answer JSON {{\"results\": [{{\"met\": true|false}}]}}"
    resp = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}], timeout=60)
    results = json.loads(resp.choices[0].message.content).get("results", [])
    if len(results) != len(assertions):
        raise ValueError(f"the judge answered {len(results)} of {len(assertions)} assertions")
    return all(r["met"] is True for r in results)
