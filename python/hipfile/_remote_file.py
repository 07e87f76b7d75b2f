"""Remote objects with KvikIO's ``RemoteFile`` interface, over the library's remote backend.

The constructors name an object as KvikIO's do; each becomes an ``http(s)://`` or ``s3://`` URL
opened with ``hipFileRemoteOpen`` (a :class:`File` on that URL), so reads run as the backend
runs them: parallel ranged GETs into host or device memory, pinned to the object's ETag. S3
credentials and region come from the environment and the AWS files as for KvikIO
(``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_DEFAULT_REGION``,
``AWS_ENDPOINT_URL``, ``AWS_PROFILE``).
"""

import ctypes
import re
from urllib.parse import urlsplit

from . import _lib
from ._errors import check
from ._file import File
from ._redact import redact

# https://BUCKET.s3[.-]REGION.amazonaws.com/KEY and https://s3[.-]REGION.amazonaws.com/BUCKET/KEY
_VIRTUAL_HOSTED = re.compile(r"^(?P<bucket>.+)\.s3(?:[.-](?P<region>[a-z0-9-]+))?\.amazonaws\.com$")
_PATH_STYLE = re.compile(r"^s3(?:[.-](?P<region>[a-z0-9-]+))?\.amazonaws\.com$")


def _s3_from_url(url):
    """``(s3 URL, options)`` for an S3 object named by ``url``: ``s3://bucket/key``, or an
    ``http(s)://`` URL in AWS's virtual-hosted or path style, or path style on another endpoint
    (an S3-compatible server)."""
    if url.startswith("s3://"):
        return url, None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("open_s3_url: %s is neither s3:// nor an http(s) URL of an S3 object"
                         % redact(url))
    if parts.query:
        raise ValueError("open_s3_url: %s has a query; a presigned URL goes to "
                         "open_s3_presigned_url" % redact(url))
    path = parts.path.lstrip("/")
    host = parts.hostname
    hosted = _VIRTUAL_HOSTED.match(host)
    if hosted:
        if not path:
            raise ValueError("open_s3_url: %s names no object" % redact(url))
        region = hosted.group("region")
        return "s3://%s/%s" % (hosted.group("bucket"), path), (
            {"region": region} if region else None)
    bucket, _, key = path.partition("/")
    if not bucket or not key:
        raise ValueError("open_s3_url: %s names no bucket and object" % redact(url))
    styled = _PATH_STYLE.match(host)
    if styled:
        region = styled.group("region")
        return "s3://%s/%s" % (bucket, key), {"region": region} if region else None
    endpoint = "%s://%s" % (parts.scheme, parts.netloc.rpartition("@")[2])
    return "s3://%s/%s" % (bucket, key), {"endpoint": endpoint, "path_style": True}


class RemoteFile:
    """An object on an HTTP server or in S3, read as ``kvikio.RemoteFile`` reads one.

    Make one with :meth:`open_http`, :meth:`open_s3`, :meth:`open_s3_url` or
    :meth:`open_s3_presigned_url`. ``nbytes``, where given, is checked against the size the
    object has when it is opened (the library always asks the server, which pins the object's
    ETag too); a different size raises ``ValueError`` rather than being trusted.
    """

    def __init__(self, url, nbytes=None, options=None):
        self._file = File(url, "r", options=options)
        size = ctypes.c_uint64()
        try:
            check(_lib.library().hipFileRemoteGetSize(self._file._handle, ctypes.byref(size)),
                  "size of %s" % url)
            if nbytes is not None and nbytes != size.value:
                raise ValueError("nbytes=%d, but %s has %d bytes" % (nbytes, redact(url),
                                                                    size.value))
        except BaseException:
            self._file.close()
            raise
        self._nbytes = size.value

    @classmethod
    def open_http(cls, url, nbytes=None):
        """The object at ``url`` (``http://`` or ``https://``), read with ranged GETs."""
        if not url.startswith(("http://", "https://")):
            raise ValueError("open_http: %s is not an http:// or https:// URL" % redact(url))
        return cls(url, nbytes)

    @classmethod
    def open_s3(cls, bucket_name, object_name, nbytes=None):
        """Object ``object_name`` of S3 bucket ``bucket_name``; signed requests."""
        if not bucket_name or not object_name:
            raise ValueError("open_s3: a bucket and an object name are needed")
        return cls("s3://%s/%s" % (bucket_name, object_name), nbytes)

    @classmethod
    def open_s3_url(cls, url, nbytes=None):
        """The S3 object named by ``url``: ``s3://bucket/object``, or its ``https://`` URL
        (``https://bucket.s3.region.amazonaws.com/object``, path style too, or path style on an
        S3-compatible endpoint); signed requests."""
        s3_url, options = _s3_from_url(url)
        return cls(s3_url, nbytes, options)

    @classmethod
    def open_s3_presigned_url(cls, presigned_url, nbytes=None):
        """The object a presigned GET URL names, read with that URL as it is (no credentials).
        S3 refuses a HEAD of such a URL; the open then asks for the object's first byte."""
        if not presigned_url.startswith(("http://", "https://")):
            raise ValueError("open_s3_presigned_url: %s is not an http(s) URL"
                             % redact(presigned_url))
        return cls(presigned_url, nbytes)

    def nbytes(self):
        """The object's size in bytes, as it was when opened."""
        return self._nbytes

    def read(self, buf, size=None, file_offset=0):
        """Read ``size`` bytes (default: all of ``buf``) from ``file_offset`` into ``buf`` (host
        or device memory); wait, and return the bytes read (fewer only at the end)."""
        return self._file.read(buf, size, file_offset)

    def pread(self, buf, size=None, file_offset=0):
        """Start :meth:`read` on the package's threads; an :class:`IOFuture`."""
        return self._file.pread(buf, size, file_offset)

    def close(self):
        """Release the object's handle (waits for reads in flight)."""
        self._file.close()

    @property
    def closed(self):
        """True once :meth:`close` has run."""
        return self._file.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<hipfile.RemoteFile %r nbytes=%d>" % (self._file, self._nbytes)
