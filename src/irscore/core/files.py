"""Opening input files: the one way every reader (TREC, organization, XML)
opens a path.

gzip is recognised by its magic bytes, whatever the file is called.  Errors
name the file: a missing path or a directory is a ``FileNotFoundError`` /
``IsADirectoryError`` carrying the name; a truncated or corrupt gzip stream,
binary data and text that is not UTF-8 are `InputFileError` (a
``ValueError``) whose message starts with the file name.
"""
from __future__ import annotations

import gzip
import io
import os
import warnings
import zlib
from typing import IO, Union

__all__ = ["GZIP_ERRORS", "GZIP_MAGIC", "InputFileError", "check_path", "decode_text", "gzip_error",
           "is_gzip", "open_binary", "open_text", "read_bytes", "read_text"]

PathLike = Union[str, "os.PathLike[str]"]

GZIP_MAGIC = b"\x1f\x8b"

# what a truncated or corrupt gzip stream raises while it is read
GZIP_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)


class InputFileError(ValueError):
    """An input file that cannot be read as what it should be (truncated or corrupt
    gzip, binary, not UTF-8 text); ``path`` names it and the message starts with it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


def gzip_error(path: str, exc: BaseException) -> InputFileError:
    """The `InputFileError` for a gzip stream that failed while read."""
    return InputFileError(path, f"truncated or corrupt gzip file ({exc})")


def check_path(path: PathLike, what: str = "input") -> str:
    """``path`` as a str; ``FileNotFoundError``/``IsADirectoryError`` naming it
    (``what``: the kind of file, e.g. ``"qrels"``) when it is not a file."""
    name = os.fspath(path)
    if not isinstance(name, str):
        name = os.fsdecode(name)
    if not os.path.exists(name):
        raise FileNotFoundError(2, f"{what} file not found", name)
    if os.path.isdir(name):
        raise IsADirectoryError(21, f"{what} path is a directory", name)
    return name


def is_gzip(path: PathLike) -> bool:
    """Whether the file starts with gzip's magic bytes."""
    with open(os.fspath(path), "rb") as f:
        return f.read(2) == GZIP_MAGIC


def open_binary(path: PathLike, what: str = "input") -> IO[bytes]:
    """The file's bytes (decompressed when it is gzip), unbuffered when plain.
    Reading a truncated or corrupt gzip stream raises one of ``GZIP_ERRORS``;
    callers turn it into `gzip_error`."""
    name = check_path(path, what)
    if is_gzip(name):
        return gzip.open(name, "rb")  # type: ignore[return-value]
    return open(name, "rb", buffering=0)


def read_bytes(path: PathLike, what: str = "input") -> bytes:
    """The whole content of a plain or gzip-compressed file; a truncated or
    corrupt gzip stream is an `InputFileError`."""
    name = check_path(path, what)
    try:
        with open_binary(name, what) as f:
            return f.read()
    except GZIP_ERRORS as exc:
        raise gzip_error(name, exc) from None


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; binary data (a NUL byte) or invalid UTF-8 is an
    `InputFileError` naming the file, the byte, its offset and line.
    A leading UTF-8 byte-order mark is dropped with a warning."""
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
    """A plain or gzip-compressed UTF-8 text file, errors naming the file."""
    name = check_path(path, what)
    return decode_text(read_bytes(name, what), name)


def open_text(path: PathLike, what: str = "input") -> io.StringIO:
    """`read_text` as a file object (for line-by-line readers)."""
    return io.StringIO(read_text(path, what))
