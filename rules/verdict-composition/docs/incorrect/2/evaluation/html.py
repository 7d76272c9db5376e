def must_include(ref, pred):
    return ref.strip().lower() in pred.lower()


def contents_match(required_contents, page_text):
    score = 1.0
    for content in required_contents:
        content_or = content.split(" |OR| ")
        # vaudit-expect: verdict-composition/truthyElement
        score *= float(any([must_include(ref=v, pred=page_text)] for v in content_or))
    return score
