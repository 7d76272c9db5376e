def calculate_reward(task, responses, data_hash, gold_hash):
    reward = 1.0
    if len(task["outputs"]) > 0:  # vaudit-expect: verdict-composition/oneBranch
        for output in task["outputs"]:
            if not any(output.lower() in r.lower() for r in responses):
                reward = 0.0
    else:
        if data_hash != gold_hash:
            reward = 0.0
    return reward
