def get_rule(env, config):
    return config["rules"]
