"""URLs in messages without their secrets: ``hipFileRedactUrls`` of the library, the same rules
the library's own log lines follow (docs/reliability.rst, "Secrets in URLs").

The library's function is used when the loaded library has it, so the rules have one source;
without it (an older library, or none loadable) :func:`_redact_py`, a transcription of
core/base/url_redact.c that the package's tests compare with the library on every case they try.
"""

import ctypes

from . import _lib

REDACTED = "***"
_NEST_MAX = 8
_EXACT = ("sig", "key", "apikey", "api_key", "x-api-key", "awsaccesskeyid")
_WITHIN = ("signature", "credential", "token", "secret", "password", "passwd")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")
_URL_ENDS = frozenset(" \t\n\r\v\f\"'<>`")


def redact(text):
    """@p text with the userinfo and signing parameters of every URL in it replaced by ***."""
    if not text:
        return text
    function = _library_function()
    if function is None:
        return _redact_py(text)
    data = text.encode("utf-8", "surrogateescape")
    size = function(data, None, 0) + 1
    out = ctypes.create_string_buffer(size)
    function(data, out, size)
    return out.value.decode("utf-8", "surrogateescape")


def _library_function():
    try:
        function = _lib.library().hipFileRedactUrls
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_size_t
    function.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    return function


def _name_is_secret(name):
    name = name.lower()
    return name in _EXACT or any(word in name for word in _WITHIN)


def _redact_py(text):
    """The rules of core/base/url_redact.c, for a library without hipFileRedactUrls."""
    out = []
    _range(out, text, 0, len(text), 0)
    return "".join(out)


def _range(out, text, begin, end, depth):
    copied = i = begin
    while i + 3 <= end:
        if text[i:i + 3] != "://" or not _scheme_before(text, copied, i):
            i += 1
            continue
        out.append(text[copied:i + 3])
        a = e = i + 3
        while e < end and text[e] not in _URL_ENDS:
            e += 1
        while e > a and text[e - 1] in ":,;.)!":
            e -= 1
        _url(out, text, a, e, depth)
        copied = i = e
    out.append(text[copied:end])


def _scheme_before(text, begin, i):
    s = i
    while s > begin and text[s - 1] in _SCHEME_CHARS:
        s -= 1
    while s < i and not text[s].isalpha():
        s += 1
    return s < i


def _authority_end(text, a, e):
    while a < e and text[a] not in "/?#":
        a += 1
    return a


def _nested(out, text, begin, end, depth):
    if depth >= _NEST_MAX:
        out.append(REDACTED)
    else:
        _range(out, text, begin, end, depth + 1)


def _url(out, text, a, e, depth):
    auth_end = _authority_end(text, a, e)
    at = text.rfind("@", a, auth_end)
    if at >= 0:
        out.append(REDACTED + "@")
        a = at + 1
    else:
        host = a
        if host < auth_end and text[host] == "[":
            while host < auth_end and text[host] != "]":
                host += 1
        colon = text.rfind(":", host, auth_end) + 1
        port = text[colon:auth_end]
        if colon > 0 and not all(c in "0123456789" for c in port):
            later = text.find("@", auth_end, e)
            if later >= 0:
                out.append(REDACTED + "@")
                a = later + 1
                auth_end = _authority_end(text, a, e)
            else:
                out.append(text[a:colon] + REDACTED)
                a = auth_end
    out.append(text[a:auth_end])
    path_end = auth_end
    while path_end < e and text[path_end] not in "?#":
        path_end += 1
    _nested(out, text, auth_end, path_end, depth)
    i = path_end
    while i < e:
        out.append(text[i])
        i += 1
        name = i
        while i < e and text[i] not in "=&#":
            i += 1
        out.append(text[name:i])
        if i >= e or text[i] != "=":
            continue
        out.append("=")
        i += 1
        value = i
        while i < e and text[i] not in "&#":
            i += 1
        if _name_is_secret(text[name:value - 1]):
            out.append(REDACTED)
        else:
            _nested(out, text, value, i, depth)
