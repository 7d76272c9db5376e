/** Python source shared by the control-case tests: the seed's exception-swallowing decorator (VER-001). */
export const ERROR_FACTORY = `def error_factory(default):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*a, **kw):
            try:
                return fn(*a, **kw)
            except Exception:
                return default
        return wrapper
    return deco
`;
