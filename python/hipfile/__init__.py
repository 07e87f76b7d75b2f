"""hipfile: move data between files and GPU memory from Python.

The calls are those of RAPIDS KvikIO's ``kvikio.CuFile``, so a program switches by changing one
line (``from hipfile import File as CuFile``)::

    import hipfile
    with hipfile.File("weights.bin", "r") as f:
        f.read(tensor)              # tensor: torch/CuPy on the GPU, or NumPy on the host

The package loads ``libhipfile.so.0`` through ctypes (``HIPFILE_LIBRARY`` names it when it is not
where the package was installed to find it); nothing is compiled, and nothing outside the
standard library is needed to import it.
"""

from ._driver import (driver, get_parameter, library_path, library_version, parameters,
                      properties, set_parameter, stats, use_count)
from ._errors import CODES, HipFileError, error_string
from ._file import File, IOFuture, num_threads, set_num_threads
from ._memory import memory_deregister, memory_register
from ._mmap import Mmap
from ._remote_file import RemoteFile
from ._page_cache import (clear_page_cache, drop_file_page_cache, drop_system_page_cache,
                          get_page_cache_info)
from ._stream_io import IOFutureStream
from . import defaults, safetensors  # usable after a plain "import hipfile"

#: The package's version, which is the C library's version it was written for.
__version__ = "0.1.0"

__all__ = ["CODES", "File", "HipFileError", "IOFuture", "IOFutureStream", "Mmap", "RemoteFile", "clear_page_cache", "defaults",
           "driver",
           "drop_file_page_cache", "drop_system_page_cache", "error_string",
           "get_page_cache_info", "get_parameter", "library_path", "library_version",
           "memory_deregister", "memory_register", "num_threads", "parameters", "properties",
           "safetensors", "set_num_threads", "set_parameter", "stats", "use_count"]
