"""Opening input files: the one way every reader (TREC, organization, XML,
prefs, z-scores) opens a path.

Compression is recognised by its magic bytes, whatever the file is called:
gzip, bzip2 and xz are decompressed (Python's ``gzip``, ``bz2``, ``lzma``);
zstd is refused with an error naming the format.  ``"-"`` is standard input.
Pipes, FIFOs, character devices and standard input are read once, whole, into
memory (they cannot be read twice; a named FIFO is opened once, so a writer that
has finished is not waited for again); `peek` keeps what it read of one for
the next open of the same stream.  Errors name the file: a missing path or a
directory is a ``FileNotFoundError`` / ``IsADirectoryError`` carrying the name; a
truncated or corrupt compressed stream, binary data and text that is not UTF-8
are `InputFileError` (a ``ValueError``) whose message starts with the
file name.

Text lines (`text_lines`, `fields`) follow the TREC readers' rule:
a line ends at ``"\n"`` only, fields are separated by ASCII white space
(space, tab, ``\r``, ``\v``, ``\f``); any other character, U+0085 and U+2028
included, belongs to a field.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import stat
import sys
import warnings
import zlib
from typing import IO, Dict, List, Optional, Tuple, Type, Union, cast

__all__ = ["GZIP_ERRORS", "GZIP_MAGIC", "STDIN", "InputFileError", "Source", "check_path", "compression",
           "decode_text", "display_name", "fields", "gzip_error", "is_gzip", "open_binary", "open_source",
           "open_text", "peek", "read_bytes", "read_text", "text_lines"]

PathLike = Union[str, "os.PathLike[str]"]

#: the name that means standard input
STDIN = "-"

GZIP_MAGIC = b"\x1f\x8b"

# what a truncated or corrupt gzip stream raises while it is read
GZIP_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)

# what a truncated or corrupt bzip2 / xz stream raises while it is read
_BZ2_ERRORS = (EOFError, OSError)
_XZ_ERRORS = (EOFError, lzma.LZMAError)

# bytes read from a stream at a time
_STREAM_CHUNK = 1 << 20


class InputFileError(ValueError):
    """An input file that cannot be read as what it should be (truncated or corrupt
    compressed data, binary, not UTF-8 text); ``path`` names it and the message
    starts with it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


def gzip_error(path: str, exc: BaseException) -> InputFileError:
    """The `InputFileError` for a gzip stream that failed while read."""
    return InputFileError(path, f"truncated or corrupt gzip file ({exc})")


def display_name(name: str) -> str:
    """How errors name the file ``name`` (``"<stdin>"`` for ``"-"``)."""
    return "<stdin>" if name == STDIN else name


def check_path(path: PathLike, what: str = "input") -> str:
    """``path`` as a str; ``FileNotFoundError``/``IsADirectoryError`` naming it
    (``what``: the kind of file, e.g. ``"qrels"``) when it is not a file.
    ``"-"`` (standard input) is returned as it is."""
    name = os.fspath(path)
    if not isinstance(name, str):
        name = os.fsdecode(name)
    if name == STDIN:
        return name
    if not os.path.exists(name):
        raise FileNotFoundError(2, f"{what} file not found", name)
    if os.path.isdir(name):
        raise IsADirectoryError(21, f"{what} path is a directory", name)
    return name


def compression(head: bytes) -> Optional[str]:
    """The compression format whose magic bytes start ``head`` (its first 10
    bytes or more): ``"gzip"``, ``"bzip2"``, ``"xz"``, ``"zstd"`` or None."""
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    # "BZh", the block size, then the magic of a block or of the end of stream
    if head[:3] == b"BZh" and head[3:4] in b"123456789" and len(head) >= 4 \
            and head[4:10] in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90"):
        return "bzip2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    return None


# named FIFOs read by peek(), kept for the next open of the same one: (dev, ino) -> bytes
_peeked: Dict[Tuple[int, int], bytes] = {}
# the last standard input or anonymous pipe read (it cannot be read again): (dev, ino) -> bytes
_kept: Dict[Tuple[int, int], bytes] = {}


def _stdin_fd() -> int:
    stdin = sys.stdin
    if stdin is None:
        raise FileNotFoundError(2, "no standard input", STDIN)
    try:
        return stdin.fileno()
    except (AttributeError, OSError, ValueError):
        raise FileNotFoundError(2, "standard input has no file descriptor", STDIN) from None


def _read_fd(fd: int, name: str) -> bytes:
    """Everything a stream's descriptor gives until end of file.  The first chunk
    is checked for NUL bytes (binary data such as /dev/zero is refused before
    it fills the memory) unless it is compressed."""
    parts: List[bytes] = []
    first = True
    while True:
        chunk = os.read(fd, _STREAM_CHUNK)
        if not chunk:
            break
        if first:
            first = False
            if compression(chunk[:10]) is None and b"\x00" in chunk:
                nul = chunk.find(b"\x00")
                line = chunk.count(b"\n", 0, nul) + 1
                raise InputFileError(display_name(name), f"binary data, not text (NUL byte at offset {nul}, "
                                                         f"line {line})")
        parts.append(chunk)
    return b"".join(parts)


class Source:
    """An input opened once: ``name`` (for messages), ``compression`` (None or
    the format), and either ``data`` (a stream's whole content, compressed as it
    came) or, for a regular file, ``path`` and ``size`` (``data`` is None)."""

    def __init__(self, name: str, compression: Optional[str], data: Optional[bytes], size: int) -> None:
        self.name = display_name(name)
        self.path = name
        self.compression = compression
        self.data = data
        self.size = size

    def open(self) -> IO[bytes]:
        """The content, decompressed: a binary file object (unbuffered for a
        plain regular file).  A truncated or corrupt bzip2 or xz stream raises
        `InputFileError` while read; gzip raises one of ``GZIP_ERRORS``
        (callers turn it into `gzip_error`)."""
        raw: IO[bytes] = io.BytesIO(self.data) if self.data is not None else open(self.path, "rb", buffering=0)
        try:
            if self.compression is None:
                return raw
            if self.compression == "gzip":
                return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
            if self.compression == "bzip2":
                return cast(IO[bytes], _Checked(bz2.BZ2File(raw), raw, self.name, "bzip2", _BZ2_ERRORS))
            if self.compression == "xz":
                return cast(IO[bytes], _Checked(lzma.LZMAFile(raw), raw, self.name, "xz", _XZ_ERRORS))
            raise InputFileError(self.name, f"{self.compression}-compressed file: {self.compression} is not "
                                            f"supported (decompress it first)")
        except BaseException:
            raw.close()
            raise


class _Checked(io.RawIOBase):
    """A decompressing file object whose format errors become InputFileError,
    closing the underlying file with it."""

    def __init__(self, f: IO[bytes], raw: IO[bytes], name: str, fmt: str, errors: Tuple[Type[BaseException], ...]) -> None:
        self._f, self._raw, self._name, self._fmt, self._errors = f, raw, name, fmt, errors

    def readable(self) -> bool:
        return True

    def _error(self, exc: BaseException) -> InputFileError:
        return InputFileError(self._name, f"truncated or corrupt {self._fmt} file ({exc})")

    def read(self, size: Optional[int] = -1) -> bytes:
        try:
            return self._f.read(-1 if size is None else size)
        except self._errors as exc:
            raise self._error(exc) from None

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, b: "bytearray | memoryview") -> int:  # type: ignore[override]
        try:
            return self._f.readinto(b)  # type: ignore[attr-defined, no-any-return]
        except self._errors as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        try:
            self._f.close()
        finally:
            self._raw.close()
            super().close()


def _anonymous(name: str) -> bool:
    """Whether the stream ``name`` is standard input or an anonymous pipe
    (``/dev/stdin``, ``/dev/fd/63`` of a process substitution): no new data can
    come once it ended, unlike a named FIFO, which a new writer can open."""
    if name == STDIN:
        return True
    real = os.path.realpath(name)
    return sys.platform.startswith("linux") and not os.path.exists(real)


def _stream(fd: int, name: str, st: os.stat_result) -> bytes:
    key = (st.st_dev, st.st_ino)
    data = _peeked.pop(key, None)
    if data is not None:
        return data
    anonymous = _anonymous(name)
    if anonymous and key in _kept:
        return _kept[key]
    data = _read_fd(fd, name)
    if anonymous:
        _kept.clear()
        _kept[key] = data
    return data


def open_source(path: PathLike, what: str = "input") -> Source:
    """Open ``path`` once (``"-"``: standard input) and tell what it is: a
    stream (pipe, FIFO, character device, socket, standard input) is read
    whole into memory; a regular file is only looked at (its size and its
    first bytes).  Standard input and anonymous pipes give the same content
    when opened again (the last one read is kept)."""
    name = check_path(path, what)
    if name == STDIN:
        fd = _stdin_fd()
        content = _stream(fd, name, os.fstat(fd))     # whatever it is, from where it stands
        return Source(name, compression(content[:10]), content, len(content))
    st = os.stat(name)
    data: Optional[bytes] = _peeked.pop((st.st_dev, st.st_ino), None)
    if data is not None:            # not opened again: a named FIFO would wait for a new writer
        return Source(name, compression(data[:10]), data, len(data))
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, f"{what} path is a directory", name)
        if not stat.S_ISREG(st.st_mode):
            data = _stream(fd, name, st)
            return Source(name, compression(data[:10]), data, len(data))
        head = os.read(fd, 16)
        return Source(name, compression(head), None, st.st_size)
    finally:
        os.close(fd)


def peek(path: PathLike, n: int, what: str = "input") -> bytes:
    """The first ``n`` bytes of the (decompressed) content, without using up a
    stream: what a stream gave is kept for the next open of it."""
    name = check_path(path, what)
    src = open_source(name, what)
    if src.data is not None and not _anonymous(name):
        st = os.stat(name)
        _peeked[(st.st_dev, st.st_ino)] = src.data
    try:
        with src.open() as f:
            return f.read(n)
    except GZIP_ERRORS as exc:
        raise gzip_error(src.name, exc) from None


def is_gzip(path: PathLike) -> bool:
    """Whether the file starts with gzip's magic bytes (a stream is not looked at: False)."""
    name = os.fspath(path)
    if name == STDIN:
        return False
    with open(name, "rb", buffering=0) as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return False
        return f.read(2) == GZIP_MAGIC


def open_binary(path: PathLike, what: str = "input") -> IO[bytes]:
    """The file's bytes (decompressed when compressed), unbuffered when plain.
    Reading a truncated or corrupt gzip stream raises one of ``GZIP_ERRORS``;
    callers turn it into `gzip_error`."""
    return open_source(path, what).open()


def read_bytes(path: PathLike, what: str = "input") -> bytes:
    """The whole content of a plain or compressed file; a truncated or corrupt
    compressed stream is an `InputFileError`."""
    src = open_source(path, what)
    if src.compression is None and src.data is not None:
        return src.data
    try:
        with src.open() as f:
            return f.read()
    except GZIP_ERRORS as exc:
        raise gzip_error(src.name, exc) from None


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; binary data (a NUL byte) or invalid UTF-8 is an
    `InputFileError` naming the file, the byte, its offset and line.
    A leading UTF-8 byte-order mark is dropped with a warning."""
    name = display_name(name)
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputFileError(name, f"binary data, not text (NUL byte at offset {nul}, line {line})")
    if data.startswith(b"\xef\xbb\xbf"):
        warnings.warn(f"{name}: UTF-8 byte-order mark at the start ignored", RuntimeWarning, stacklevel=3)
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(name, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, "
                                   f"line {line})") from None


def read_text(path: PathLike, what: str = "input") -> str:
    """A plain or compressed UTF-8 text file, errors naming the file."""
    name = check_path(path, what)
    return decode_text(read_bytes(name, what), name)


def open_text(path: PathLike, what: str = "input") -> io.StringIO:
    """`read_text` as a file object (for line-by-line readers).  Its lines
    end at ``"\n"`` only (``newline="\n"``)."""
    return io.StringIO(read_text(path, what), newline="\n")


_FIELD = re.compile(r"[^\t\n\v\f\r ]+")


def text_lines(text: str) -> List[str]:
    """The lines of ``text``: split at ``"\n"`` only (``"\r"``, form feed,
    vertical tab, U+0085, U+2028 ... stay in the line, as in the TREC readers
    and trec_eval's), without the empty piece after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def fields(line: str) -> List[str]:
    """The white-space separated fields of a line, white space being the TREC
    readers' (and C ``isspace``'s): space, tab, ``\r``, ``\v``, ``\f``, ``\n``."""
    return _FIELD.findall(line)
