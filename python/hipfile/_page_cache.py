"""The page-cache helpers of ``kvikio``: how much of a file is cached, and dropping it, for one
file (no privileges) or for the whole system (root, or ``sudo`` without a password).

Residency comes from ``cachestat(2)`` (Linux 6.5), or ``mincore(2)`` over a read-only mapping
where the kernel is older; both count whole pages.
"""

import ctypes
import ctypes.util
import io
import os
import shutil
import subprocess
import warnings

_PAGE = os.sysconf("SC_PAGESIZE")
_DROP_CACHES = "/proc/sys/vm/drop_caches"
_CACHESTAT = 451  # one number on every architecture
_PROT_READ, _MAP_SHARED = 0x1, 0x01
_MAP_FAILED = ctypes.c_void_p(-1).value

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Cachestat(ctypes.Structure):
    _fields_ = [("nr_cache", ctypes.c_uint64), ("nr_dirty", ctypes.c_uint64),
                ("nr_writeback", ctypes.c_uint64), ("nr_evicted", ctypes.c_uint64),
                ("nr_recently_evicted", ctypes.c_uint64)]


class _Opened:
    """A descriptor for ``file`` (a path, a descriptor or a file object), closed on exit only
    when it was opened here."""

    def __init__(self, file, flags, what):
        self._own = False
        if isinstance(file, (str, bytes, os.PathLike)):
            self.fd = os.open(file, flags | os.O_CLOEXEC)
            self._own = True
        elif isinstance(file, int) and not isinstance(file, bool):
            self.fd = file
        elif isinstance(file, io.IOBase) or hasattr(file, "fileno"):
            self.fd = file.fileno()
        else:
            raise TypeError("%s: file must be a path, a file descriptor or a file object, not %s"
                            % (what, type(file).__name__))

    def __enter__(self):
        return self.fd

    def __exit__(self, *exc):
        if self._own:
            os.close(self.fd)


def _cached_pages_cachestat(fd, size):
    result = _Cachestat()
    if _libc.syscall(_CACHESTAT, fd, ctypes.byref(_Range(0, size)), ctypes.byref(result), 0):
        return None
    return result.nr_cache


def _cached_pages_mincore(fd, size):
    address = _libc.mmap(None, size, _PROT_READ, _MAP_SHARED, fd, 0)
    if address in (None, _MAP_FAILED):
        error = ctypes.get_errno()
        raise OSError(error, "mmap for mincore: %s" % os.strerror(error))
    try:
        pages = ctypes.create_string_buffer((size + _PAGE - 1) // _PAGE)
        if _libc.mincore(address, size, pages) != 0:
            error = ctypes.get_errno()
            raise OSError(error, "mincore: %s" % os.strerror(error))
        return sum(byte & 1 for byte in pages.raw)
    finally:
        _libc.munmap(address, size)


def get_page_cache_info(file):
    """``(pages_cached, pages_total)`` of ``file`` (a path, a descriptor or a file object), as
    ``kvikio.get_page_cache_info``. Raises ``OSError`` when the file cannot be opened or asked."""
    with _Opened(file, os.O_RDONLY, "get_page_cache_info") as fd:
        size = os.fstat(fd).st_size
        total = (size + _PAGE - 1) // _PAGE
        if size == 0:
            return 0, 0
        cached = _cached_pages_cachestat(fd, size)
        if cached is None:
            cached = _cached_pages_mincore(fd, size)
        return min(cached, total), total


def drop_file_page_cache(file, offset=0, length=0, sync_first=True):
    """Ask the kernel to drop ``file``'s cached pages in ``[offset, offset + length)`` (``length``
    0: to the end), as ``kvikio.drop_file_page_cache``: ``posix_fadvise(POSIX_FADV_DONTNEED)``,
    after ``fdatasync`` when ``sync_first`` (dirty pages cannot be dropped). Needs no privilege
    and touches no other file; pages only partly in the range stay. Raises ``OSError``, and
    ``ValueError`` for a negative offset or length."""
    for name, value in (("offset", offset), ("length", length)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError("drop_file_page_cache: %s must be an integer 0 or more, got %r"
                             % (name, value))
    with _Opened(file, os.O_RDONLY, "drop_file_page_cache") as fd:
        if sync_first:
            os.fdatasync(fd)
        os.posix_fadvise(fd, offset, length, os.POSIX_FADV_DONTNEED)


def drop_system_page_cache(reclaim_dentries_and_inodes=True, sync_first=True):
    """Drop the whole system's page cache (and dentries and inodes when
    ``reclaim_dentries_and_inodes``), as ``kvikio.drop_system_page_cache``: ``sync`` first when
    ``sync_first``, then ``vm.drop_caches``, written directly by root or through
    ``sudo -n sysctl``. Returns whether it was dropped. Every process on the machine loses its
    cached files: for one file, :func:`drop_file_page_cache`."""
    value = "3" if reclaim_dentries_and_inodes else "1"
    if sync_first:
        os.sync()
    try:
        with open(_DROP_CACHES, "w") as stream:
            stream.write(value)
        return True
    except OSError:
        pass
    sudo, sysctl = shutil.which("sudo"), shutil.which("sysctl", path="/usr/sbin:/sbin:/usr/bin")
    if sudo is None or sysctl is None:
        return False
    done = subprocess.run([sudo, "-n", sysctl, "-q", "vm.drop_caches=" + value],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return done.returncode == 0


def clear_page_cache(reclaim_dentries_and_inodes=True, clear_dirty_pages=True):
    """Deprecated in KvikIO, kept for its programs: :func:`drop_system_page_cache`."""
    warnings.warn("clear_page_cache is deprecated; use drop_system_page_cache",
                  DeprecationWarning, stacklevel=2)
    return drop_system_page_cache(reclaim_dentries_and_inodes, clear_dirty_pages)
