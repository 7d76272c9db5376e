def log_has_entry(log_path, key):
    with open(log_path) as f:
        for line in f:  # vaudit-expect: control-flow-slip/firstItem
            if key in line.split():
                return 1
            else:
                return 0
    return 0
