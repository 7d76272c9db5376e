"""A fixed host clock for a control case (`clock` in the request; see run_cases.py).
"""
import time


class FixedClock:
    """The host clock set to one instant for a case (`clock`), undone by `restore()`. The verifier's modules
    are imported after it is set, so `from datetime import datetime` binds the fixed class too."""

    def __init__(self, t):
        import datetime as dt
        self.dt, self.saved = dt, (dt.datetime, dt.date, time.time, time.time_ns, time.localtime, time.gmtime, time.ctime, time.strftime)
        real_dt, real_date, localtime, gmtime, ctime, strftime = dt.datetime, dt.date, time.localtime, time.gmtime, time.ctime, time.strftime
        t = float(t)

        class datetime(real_dt):
            @classmethod
            def now(cls, tz=None):
                return cls.fromtimestamp(t, tz)

            @classmethod
            def today(cls):
                return cls.fromtimestamp(t)

            @classmethod
            def utcnow(cls):
                return cls.fromtimestamp(t, dt.timezone.utc).replace(tzinfo=None)

        class date(real_date):
            @classmethod
            def today(cls):
                return cls.fromtimestamp(t)

        datetime.__module__ = date.__module__ = "datetime"
        dt.datetime, dt.date = datetime, date
        time.time = lambda: t
        time.time_ns = lambda: int(t * 1e9)
        time.localtime = lambda secs=None: localtime(t if secs is None else secs)
        time.gmtime = lambda secs=None: gmtime(t if secs is None else secs)
        time.ctime = lambda secs=None: ctime(t if secs is None else secs)
        time.strftime = lambda fmt, tup=None: strftime(fmt, localtime(t) if tup is None else tup)

    def restore(self):
        dt = self.dt
        dt.datetime, dt.date, time.time, time.time_ns, time.localtime, time.gmtime, time.ctime, time.strftime = self.saved
