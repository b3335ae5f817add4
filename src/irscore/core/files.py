"""Opening input files: the one way every reader (TREC, organization, XML)
opens a path.

gzip is recognised by its magic bytes, whatever the file is called; a
missing path or a directory raises an error that names the path.
"""
from __future__ import annotations

import gzip
import io
import os
from typing import IO, TextIO, Union

__all__ = ["GZIP_MAGIC", "check_path", "is_gzip", "open_binary", "open_text"]

PathLike = Union[str, "os.PathLike[str]"]

GZIP_MAGIC = b"\x1f\x8b"


def check_path(path: PathLike, what: str = "input") -> str:
    """``path`` as a str; ``FileNotFoundError``/``IsADirectoryError`` naming it
    (``what``: the kind of file, e.g. ``"qrels"``) when it is not a file."""
    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileNotFoundError(f"{what} file not found: {name}")
    if os.path.isdir(name):
        raise IsADirectoryError(f"{what} path is a directory: {name}")
    return name


def is_gzip(path: PathLike) -> bool:
    """Whether the file starts with gzip's magic bytes."""
    with open(os.fspath(path), "rb") as f:
        return f.read(2) == GZIP_MAGIC


def open_binary(path: PathLike, what: str = "input") -> IO[bytes]:
    """The file's bytes (decompressed when it is gzip), unbuffered when plain."""
    name = check_path(path, what)
    if is_gzip(name):
        return gzip.open(name, "rb")  # type: ignore[return-value]
    return open(name, "rb", buffering=0)


def open_text(path: PathLike, what: str = "input") -> TextIO:
    """The file as UTF-8 text (decompressed when it is gzip)."""
    name = check_path(path, what)
    if is_gzip(name):
        return io.TextIOWrapper(gzip.open(name, "rb"), encoding="utf-8")
    return open(name, "r", encoding="utf-8")
