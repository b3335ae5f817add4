"""A file that shrinks or changes while it is read: a clear error naming the
file (or the read of what was there), never a crash.

Files of 16 MiB or more are parsed from a memory map; a page past the end of a
truncated file raises SIGBUS, which killed the process.  Each case runs in a
subprocess with a time limit: the child must not die of a signal."""
import subprocess
import sys
import textwrap

import pytest

LIMIT = 120

_MAKE = """
    import os, sys, threading, time
    import irscore
    from irscore.core import io as _io
    path = sys.argv[1]
    if not os.path.exists(path):
        with open(path, "w") as f:
            line = 0
            while f.tell() < 24 << 20:       # 24 MiB: read in parts from a memory map
                f.write("".join(f"q{(line + i) // 500} Q0 doc{line + i} {i % 500 + 1} {1.0 / (i + 1)!r} run\\n"
                                for i in range(10000)))
                line += 10000
    full = os.path.getsize(path)
    original = open(path, "rb").read()

    def restore():
        with open(path, "wb") as f:
            f.write(original)
"""


def _child(body, path):
    code = textwrap.dedent(_MAKE) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=LIMIT)


def _check(got, path, said_changed=True):
    assert got.returncode >= 0, f"child killed by signal {-got.returncode}: {got.stderr[-2000:]}"
    assert got.returncode == 0, got.stderr[-2000:]
    for line in got.stdout.splitlines():
        kind, _, message = line.partition(" ")
        assert kind in ("error", "ok"), line
        if kind == "error":
            assert message.startswith(f"{path}:"), message
            if said_changed:
                assert message.startswith(f"{path}: the file ") and (
                    "shrank while it was read" in message or "changed while it was read" in message), message


def test_truncated_between_count_and_parse_is_an_error_not_sigbus(tmp_path):
    # deterministic: the file is cut to 1 MiB after the count pass released its
    # pages, so the parse pass reads pages past the new end of the file
    path = tmp_path / "run.txt"
    got = _child("""
        real_run = _io._parallel.run
        calls = []

        def run(fn, spans):
            calls.append(1)
            if len(calls) == 2:                 # the parse pass: the count pass is done
                os.truncate(path, 1 << 20)
            return real_run(fn, spans)

        _io._parallel.run = run
        try:
            irscore.read_run(path)
            print("ok read")
        except ValueError as exc:
            print("error", exc)
        _io._parallel.run = real_run
        restore()
        r = irscore.read_run(path)                # the process goes on reading correctly
        assert r.n_entries == sum(1 for _ in open(path)), r.n_entries
    """, path)
    _check(got, path)
    assert got.stdout.startswith("error "), got.stdout


@pytest.mark.parametrize("cut", [0, 1 << 20, 12 << 20 | 123])
def test_truncated_by_a_thread_while_read(tmp_path, cut):
    # timing-dependent: a thread cuts the file at several moments of the read;
    # each read gives the entries of the file (whole, or as cut before the read
    # looked at it) or an error naming the file (the file changed or shrank; or,
    # cut before the read looked at it: empty, or a last line cut short), and the
    # child survives
    path = tmp_path / "run.txt"
    got = _child(f"""
        n_full = irscore.read_run(path).n_entries
        t0 = time.perf_counter()
        irscore.read_run(path)
        span = time.perf_counter() - t0
        for i in range(8):
            restore()
            delay = span * i / 8
            t = threading.Thread(target=lambda: (time.sleep(delay), os.truncate(path, {cut})))
            t.start()
            try:
                r = irscore.read_run(path)
                assert r.n_entries in (n_full, 0) or os.path.getsize(path) == {cut}, r.n_entries
                print("ok", r.n_entries)
            except ValueError as exc:
                print("error", exc)
            t.join()
    """, path)
    _check(got, path, said_changed=False)


def test_rewritten_in_place_while_read_is_an_error(tmp_path):
    # same size, other content (query ids shifted) between the count and the parse:
    # "changed while it was read" when the modification time moved, else the
    # first line the count and the parse disagree on (the file's timestamps may
    # not move within a few milliseconds)
    path = tmp_path / "run.txt"
    got = _child("""
        real_run = _io._parallel.run
        calls = []

        def run(fn, spans):
            calls.append(1)
            if len(calls) == 2:
                with open(path, "r+b") as f:
                    f.seek(len(original) // 3)
                    f.write(original[:len(original) // 3].replace(b"q", b"z"))
            return real_run(fn, spans)

        _io._parallel.run = run
        try:
            irscore.read_run(path)
            print("ok read")
        except ValueError as exc:
            print("error", exc)
    """, path)
    _check(got, path, said_changed=False)
    assert got.stdout.startswith("error "), got.stdout


@pytest.mark.parametrize("change", ["truncate", "append"])
def test_small_file_changed_while_read_in_chunks_is_an_error(tmp_path, change):
    # files under 16 MiB are read in chunks: one cut (or extended) after the first
    # chunk gave the entries of what was left, silently
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q{i // 100} Q0 d{i} {i % 100 + 1} {1.0 / (i + 1)!r} run\n" for i in range(5000)))
    code = f"""
        import os, sys, irscore
        from irscore.core import io as _io
        from irscore import _trec_io
        path = sys.argv[1]
        _io._CHUNK = 4096

        class Parser(_trec_io.TrecParser):
            fed = 0

            def feed(self, chunk):
                super().feed(chunk)
                Parser.fed += 1
                if Parser.fed == 1:
                    if {change!r} == "truncate":
                        os.truncate(path, 10000)
                    else:
                        with open(path, "a") as f:
                            f.write("q0 Q0 extra 1 1.0 run\\n")

        _io._trec_io = type("M", (), {{"TrecParser": Parser}})
        try:
            print("ok", irscore.read_run(path).n_entries)
        except ValueError as exc:
            print("error", exc)
    """
    got = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(path)], capture_output=True, text=True,
                         timeout=LIMIT)
    _check(got, path)
    assert got.stdout.startswith("error "), got.stdout
