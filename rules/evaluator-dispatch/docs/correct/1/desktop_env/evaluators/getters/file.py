def get_vm_file(env, config):
    return env.controller.fetch(config["path"])


def get_local_file(env, config):
    return config["path"]
