"""A functional double of the part of `requests_toolbelt` that verifier code uses: `MultipartEncoder`.

Served by the control-case harness ONLY when this Python lacks `requests_toolbelt` and the verifier's
own files import it (case_context.DoubleFinder); whenever it is installed the real one runs.
Semantics follow requests-toolbelt 1.0 (`requests_toolbelt/multipart/encoder.py`) as read from its source:
- `MultipartEncoder(fields, boundary=None, encoding="utf-8")`: `fields` a dict or a list of
  (name, value) pairs; a value is a str/bytes, or a tuple (filename, data or file object[, content type
  [, headers]]); a file object is read when the encoder is built (the real one streams it: the bytes
  sent are the same).
- `content_type` ("multipart/form-data; boundary=<boundary>"), `boundary_value`, `len` and `len()`,
  `read(size=-1)` (file-like, as `requests` streams it as a request body), `to_string()`.
Also importable as `requests_toolbelt.MultipartEncoder` and `requests_toolbelt.multipart.encoder`.
Not provided (touching them stops the case as `verifierUnavailable`, naming what was used):
`MultipartEncoderMonitor`, `MultipartDecoder`, adapters, sessions, auth helpers.
"""
import io as _io
import types as _types
import uuid as _uuid


class MultipartEncoder(object):
    def __init__(self, fields, boundary=None, encoding="utf-8"):
        self.boundary_value = boundary or _uuid.uuid4().hex
        self.boundary = "--{}".format(self.boundary_value)
        self.encoding = encoding
        self.fields = fields
        body = _io.BytesIO()
        items = fields.items() if hasattr(fields, "items") else fields
        for name, value in items:
            filename, content_type, headers = None, None, {}
            if isinstance(value, (tuple, list)):
                if len(value) == 2:
                    filename, data = value
                elif len(value) == 3:
                    filename, data, content_type = value
                else:
                    filename, data, content_type, headers = value
            else:
                data = value
            if hasattr(data, "read"):
                data = data.read()
            if isinstance(data, str):
                data = data.encode(encoding)
            elif not isinstance(data, (bytes, bytearray)):
                data = str(data).encode(encoding)
            disposition = 'form-data; name="%s"' % name
            if filename is not None:
                disposition += '; filename="%s"' % filename
            head = "Content-Disposition: %s\r\n" % disposition
            if content_type:
                head += "Content-Type: %s\r\n" % content_type
            for k, v in (headers or {}).items():
                head += "%s: %s\r\n" % (k, v)
            body.write(("%s\r\n%s\r\n" % (self.boundary, head)).encode(encoding))
            body.write(bytes(data))
            body.write(b"\r\n")
        body.write(("%s--\r\n" % self.boundary).encode(encoding))
        self._body = body.getvalue()
        self._stream = _io.BytesIO(self._body)

    @property
    def content_type(self):
        return "multipart/form-data; boundary={}".format(self.boundary_value)

    @property
    def len(self):
        return len(self._body) - self._stream.tell()

    def __len__(self):
        return self.len

    def read(self, size=-1):
        return self._stream.read(-1 if size is None else size)

    def to_string(self):
        return self._body

    def __repr__(self):
        return "<MultipartEncoder: {!r}>".format(self.fields)


encoder = _types.ModuleType("requests_toolbelt.multipart.encoder")
encoder.MultipartEncoder = MultipartEncoder
multipart = _types.ModuleType("requests_toolbelt.multipart")
multipart.MultipartEncoder = MultipartEncoder
multipart.encoder = encoder
multipart.SUBMODULES = {"encoder": encoder}
multipart.__path__ = []
SUBMODULES = {"multipart": multipart}
