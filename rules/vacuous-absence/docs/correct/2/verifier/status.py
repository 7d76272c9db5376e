GONE = ("deleted", "archived")


def still_listed(entry, statuses):
    status = None
    if entry.get("status"):
        status = entry["status"]
    # a test of the value against alternatives written in the code, not a look-up in the state
    if status not in GONE:
        return statuses.get(entry["id"]) == status
    return entry["id"] not in statuses
