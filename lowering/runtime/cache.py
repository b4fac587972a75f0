"""The persistent compilation cache: serialized XLA executables in a directory, so a new
process loads a program compiled before instead of compiling it again.

Switched on by ``fe.config.update("compilation_cache_dir", path)`` or the environment
variable ``VMAPLAB_COMPILATION_CACHE_DIR`` (as JAX's ``jax_compilation_cache_dir``). Only
compilations that took at least ``persistent_cache_min_compile_time_secs`` (1 s, as JAX) are
written; ``compilation_cache_max_size`` bytes (-1: no limit) bounds the directory, least
recently used entries evicted first.

- Key: sha256 of the StableHLO text, the jaxlib version, platform and its version, device
  kind and id, the serialized compile options and ``XLA_FLAGS``.
- Entry: a header (format tag, key, sha256 of the payload) and the payload. An entry that is
  truncated, altered or cannot be deserialized is compiled again with a warning, and replaced.
- Writes go to a temporary file in the directory, renamed over the entry: a reader sees a
  whole entry or none, and two processes writing one entry leave one whole entry.
- Use updates an entry's mtime: eviction removes the oldest mtimes first. Eviction counts
  and removes only what the cache wrote: regular files named as entries (64 hex digits) that
  start with the entry header, and its own stale temporary files; anything else in the
  directory (a user's files, FIFOs, links) is left alone and never opened.
- Trust: an entry is native code this process runs, so whoever can write the directory can
  run code in it (as with JAX's cache). Entries are written 0600, and a directory that is
  writable by others or owned by another user is refused with a warning (no cache).
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import tempfile
import time
import warnings

_FORMAT = b"vmaplab-executable-1\n"
_TMP = ".tmp-"
_STALE_TMP_SECS = 3600.0
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}")
_TMP_NAME = re.compile(re.escape(_TMP) + r"[a-z0-9_]{8}")  # mkstemp's names
stats = {"hits": 0, "misses": 0, "writes": 0, "errors": 0}
_log = logging.getLogger("lowering.runtime.cache")


def stats_copy() -> dict:
    return dict(stats)


def reset_stats() -> None:
    for k in stats:
        stats[k] = 0


class CacheWarning(UserWarning):
    """The persistent compilation cache skipped an entry (corrupt, unreadable, unwritable)."""


def _settings():
    from frontend.core.config import config
    return (config.compilation_cache_dir, config.compilation_cache_max_size,
            config.persistent_cache_min_compile_time_secs)


def _warn(msg: str) -> None:
    stats["errors"] += 1
    warnings.warn(f"persistent compilation cache: {msg}", CacheWarning, stacklevel=4)


def key(text: str, device, options_bytes: bytes) -> str:
    import jaxlib.version
    client = device.client
    h = hashlib.sha256()
    for part in (_FORMAT, text.encode(), jaxlib.version.__version__.encode(),
                 client.platform.encode(), client.platform_version.encode(),
                 device.device_kind.encode(), str(device.id).encode(), options_bytes,
                 os.environ.get("XLA_FLAGS", "").encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def _read(path: str, k: str) -> bytes | None:
    """The payload of an entry; None if there is none, or (with a warning) if it is damaged."""
    try:  # without following links or blocking (a FIFO named as the entry)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        _warn(f"cannot read {path}: {e}; compiling")
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            _warn(f"{path} is not a regular file; compiling without it")
            return None
        try:
            data = f.read()
        except OSError as e:
            _warn(f"cannot read {path}: {e}; compiling")
            return None
    head = len(_FORMAT) + 2 * 65
    if (data[:len(_FORMAT)] == _FORMAT and len(data) >= head
            and data[len(_FORMAT):len(_FORMAT) + 64] == k.encode()):
        digest = data[len(_FORMAT) + 65:head - 1]
        payload = data[head:]
        if hashlib.sha256(payload).hexdigest().encode() == digest:
            return payload
    _warn(f"entry {path} is corrupt (truncated or altered); compiling again")
    _remove(path)
    return None


def _write(directory: str, path: str, k: str, payload: bytes) -> bool:
    """Write an entry atomically (temporary file + rename); False (with a warning) on failure."""
    data = (_FORMAT + k.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n"
            + payload)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=_TMP)  # (mode 0600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return True
    except OSError as e:
        _warn(f"cannot write {path}: {e}")
        if tmp is not None:
            _remove(tmp)
        return False


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass  # another process removed it first


def _is_entry(path: str, name: str) -> bool:
    """A regular file named as an entry that starts with the entry header (opened without
    following links and without blocking, so a FIFO or device cannot hang the process)."""
    if not _ENTRY_NAME.fullmatch(name):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, len(_FORMAT) + 64)
    except OSError:
        return False
    finally:
        os.close(fd)
    return head == _FORMAT + name.encode()


def evict(directory: str, max_size: int) -> None:
    """Remove least recently used entries until the entries hold at most ``max_size`` bytes;
    also temporary files a crashed writer left behind. Only files the cache wrote are
    counted or removed."""
    entries, total, now = [], 0, time.time()
    try:
        with os.scandir(directory) as it:
            for e in it:
                is_tmp = _TMP_NAME.fullmatch(e.name) is not None
                if not is_tmp and (max_size < 0 or not _ENTRY_NAME.fullmatch(e.name)):
                    continue
                try:
                    st = os.lstat(e.path)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue  # a FIFO, link or directory: not ours, never opened
                if is_tmp:
                    if now - st.st_mtime > _STALE_TMP_SECS and st.st_uid == os.getuid():
                        _remove(e.path)
                    continue
                if _is_entry(e.path, e.name):
                    entries.append((st.st_mtime, e.path, st.st_size))
                    total += st.st_size
    except OSError:
        return
    if max_size < 0:
        return
    for _, path, size in sorted(entries):
        if total <= max_size:
            break
        _remove(path)
        total -= size


def _safe_directory(directory: str) -> bool:
    """The cache directory may be used: created if missing (0700), else a directory owned
    by this user and not writable by group or others. False (with a warning) otherwise."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        st = os.stat(directory)
    except OSError as e:
        _warn(f"cannot create {directory}: {e}; compiling without it")
        return False
    if not stat.S_ISDIR(st.st_mode):
        _warn(f"{directory} is not a directory; compiling without the cache")
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        _warn(f"{directory} is owned by another user (uid {st.st_uid}): whoever writes it can "
              "run code in this process; compiling without the cache")
        return False
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        _warn(f"{directory} is writable by others (mode {stat.S_IMODE(st.st_mode):o}): whoever "
              "writes it can run code in this process; compiling without the cache "
              f"(chmod go-w {directory})")
        return False
    return True


def compile_or_load(text: str, device, options, compile_fn, deserialize_fn):
    """The executable of ``text``: loaded from the cache directory when an entry is there,
    else ``compile_fn()`` (and stored when it took long enough). ``deserialize_fn(payload)``
    turns a payload back into an executable."""
    directory, max_size, min_secs = _settings()
    if not directory:
        return compile_fn()
    if not _safe_directory(directory):
        return compile_fn()
    k = key(text, device, options.SerializeAsString())
    path = os.path.join(directory, k)
    payload = _read(path, k)
    if payload is not None:
        try:
            loaded = deserialize_fn(payload)
        except Exception as e:  # an entry XLA cannot load (e.g. another build): compile again
            _warn(f"entry {path} cannot be loaded ({str(e)[:200]}); compiling again")
            _remove(path)
        else:
            stats["hits"] += 1
            _log.debug("compilation cache hit %s (%d bytes)", k[:16], len(payload))
            try:
                os.utime(path)  # most recently used
            except OSError:
                pass
            return loaded
    stats["misses"] += 1
    _log.debug("compilation cache miss %s", k[:16])
    t0 = time.perf_counter()
    loaded = compile_fn()
    if time.perf_counter() - t0 < min_secs:
        return loaded
    try:
        blob = loaded.serialize()
    except Exception as e:  # some executables (host callbacks) do not serialize
        _warn(f"executable cannot be serialized ({str(e)[:200]}); not cached")
        return loaded
    if 0 <= max_size < len(blob):
        return loaded  # larger than the whole cache
    if _write(directory, path, k, blob):
        stats["writes"] += 1
        evict(directory, max_size)
    return loaded
