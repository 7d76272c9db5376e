def log_has_entry(log_path, key):
    with open(log_path) as f:
        for line in f:
            if key in line.split():
                return 1
    return 0
