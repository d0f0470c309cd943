"""What ``mcp-codegen`` and its build daemon share: where a project's daemon listens, how their
messages are framed, and what must be equal on both sides for the daemon's build to be the one
the command would have run itself (standard library only: every ``generate`` reads this before
anything else, so what only a daemon needs, ``hashlib`` and ``json``, is imported when one runs).

Runs in: parent.
"""

from __future__ import annotations

import os
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from typing import Any, BinaryIO

#: Variables a shell sets per process, which no build reads: a command typed in another
#: directory or sub-shell than the one that started the daemon still uses it.
SHELL_BOOKKEEPING = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})

#: Frame kinds. From the command: ``REQUEST``. From the daemon: output, then one ``EXIT``
#: (the command's exit code) or ``REFUSED`` (the command builds in its own process).
REQUEST = b"q"
STDOUT = b"o"
STDERR = b"e"
EXIT = b"x"
REFUSED = b"r"
_HEADER = struct.Struct(">cI")
#: A request holds a command line and an environment: anything larger is not one.
MAX_FRAME = 16 * 1024 * 1024

#: The longest socket path every POSIX system takes (``sun_path`` is 104 bytes on macOS and the
#: BSDs, 108 on Linux, the terminating NUL included).
MAX_SOCKET_PATH = 103

#: What ``sys.flags`` fields change how the generator's own code runs.
_FLAGS = ("optimize", "dev_mode", "utf8_mode", "no_user_site", "isolated", "ignore_environment")


class DaemonError(Exception):
    """The daemon's directory or socket cannot be used safely (the message says how to fix it)."""


def runtime_directory() -> str:
    """The directory every daemon of this user listens in: ``$XDG_RUNTIME_DIR/mcp-codegen``, or
    ``$TMPDIR/mcp-codegen-UID`` (``/tmp`` without ``TMPDIR``)."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(base):
        return os.path.join(base, "mcp-codegen")
    tmp = os.environ.get("TMPDIR", "")
    return os.path.join(tmp if os.path.isabs(tmp) else "/tmp", f"mcp-codegen-{os.getuid()}")


def private_directory(create: bool) -> str | None:
    """``runtime_directory()``, checked to be reachable by this user only (created 0700 when
    ``create``); ``None`` when it does not exist and ``create`` is false."""
    path = runtime_directory()
    if create:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise DaemonError(
                f"{path}: cannot create the daemon's directory: {exc.strerror}"
            ) from None
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return None
    # Imported here: the client checks the socket on every build command's start-up.
    import stat

    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
        raise DaemonError(
            f"{path}: not a directory of this user; remove it, or set XDG_RUNTIME_DIR to a "
            "directory only you can reach"
        )
    if status.st_mode & 0o077:
        raise DaemonError(
            f"{path}: other users can reach it (mode {status.st_mode & 0o777:o}); "
            f"run `chmod 700 {path}`, or remove it"
        )
    return path


def any_listening(directory: str) -> bool:
    """Whether any daemon's socket is in ``directory`` (checked before a name is hashed)."""
    try:
        return any(name.endswith(".sock") for name in os.listdir(directory))
    except OSError:
        return False


def socket_name(config_file: str) -> str:
    """The socket's file name for a project: named by its configuration file's real path."""
    # Imported here: hashlib only once a socket is named (start-up cost).
    import hashlib

    digest = hashlib.sha256(os.path.realpath(config_file).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:24] + ".sock"


def socket_in(directory: str, config_file: str) -> str:
    """Where the daemon of ``config_file`` listens in ``directory`` (``private_directory()``)."""
    path = os.path.join(directory, socket_name(config_file))
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise DaemonError(
            f"{path}: too long for a socket ({MAX_SOCKET_PATH} bytes at most); set "
            "XDG_RUNTIME_DIR to a shorter directory only you can reach"
        )
    return path


def socket_path(config_file: str, create: bool = False) -> str | None:
    """Where the daemon of ``config_file`` listens (``None``: no daemon directory yet)."""
    directory = private_directory(create)
    return socket_in(directory, config_file) if directory is not None else None


def send(sock: socket.socket, kind: bytes, payload: bytes) -> None:
    sock.sendall(_HEADER.pack(kind, len(payload)) + payload)


def send_json(sock: socket.socket, kind: bytes, value: Any) -> None:
    # Imported here: json only when a daemon is asked (start-up cost).
    import json

    send(sock, kind, json.dumps(value).encode())


def receive(stream: BinaryIO) -> tuple[bytes, bytes] | None:
    """The next frame, or ``None`` at the end of the stream (or a frame cut short)."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    kind, size = _HEADER.unpack(header)
    if size > MAX_FRAME:
        return None
    payload = stream.read(size)
    return (kind, payload) if len(payload) == size else None


def _package_directory() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def code_stamp(package: str | None = None) -> str:
    """A digest of mcp-codegen's own files as installed (name, size and mtime of every ``.py``
    and template): an edited or reinstalled mcp-codegen is another generator."""
    # Imported here: hashlib only for the daemon's identity (start-up cost).
    import hashlib

    package = package or _package_directory()
    digest = hashlib.sha256()
    roots = [package, os.path.join(package, "templates"), os.path.join(package, "..", "templates")]
    for root in roots:
        for directory, names, files in os.walk(root):
            names[:] = sorted(n for n in names if n != "__pycache__" and n != "templates")
            for name in sorted(files):
                if name.endswith((".py", ".jinja")):
                    path = os.path.join(directory, name)
                    status = os.stat(path)
                    digest.update(f"{path}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _installed(entry: str) -> list[str]:
    """The distributions installed in one import directory, by their metadata's names (which
    carry their versions) and ``.pth`` files: what ``pip install`` and ``uninstall`` change."""
    try:
        names = os.listdir(entry or ".")
    except OSError:
        return []
    return sorted(n for n in names if n.endswith((".dist-info", ".egg-info", ".egg-link", ".pth")))


def identity(drop_first: bool | None = None) -> dict[str, Any]:
    """What decides a build in this process besides the project and the environment variables:
    the interpreter, its flags, where imports come from and what is installed there, and
    mcp-codegen's own code."""
    if drop_first is None:
        drop_first = not sys.flags.safe_path
    # Imported here: hashlib only for the daemon's identity (start-up cost).
    import hashlib

    path = list(sys.path[1:] if drop_first else sys.path)  # without the starting script's entry
    installed = hashlib.sha256()
    for entry in path:
        installed.update(f"{entry}\0{chr(0).join(_installed(entry))}\n".encode())
    return {
        "executable": sys.executable,
        "version": sys.version,
        "flags": {name: getattr(sys.flags, name) for name in _FLAGS},
        "path": path,
        "installed": installed.hexdigest(),
        "package": _package_directory(),
        "code": code_stamp(),
    }


def environment() -> dict[str, str]:
    """This process's environment variables, without ``SHELL_BOOKKEEPING``."""
    return {k: v for k, v in os.environ.items() if k not in SHELL_BOOKKEEPING}


def difference(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """What differs between two ``identity()`` values, in words, or ``None``."""
    if ours["executable"] != theirs["executable"] or ours["version"] != theirs["version"]:
        return f"another Python ({theirs['executable']}, not {ours['executable']})"
    if ours["flags"] != theirs["flags"]:
        return "other interpreter flags (-O, -X dev, -I, -s, -E)"
    if ours["package"] != theirs["package"] or ours["code"] != theirs["code"]:
        return "mcp-codegen's own files changed, or another copy of it is used"
    if ours["path"] != theirs["path"]:
        return "another sys.path"
    if ours["installed"] != theirs["installed"]:
        return "packages were installed, upgraded or removed"
    return None


def environment_difference(ours: dict[str, str], theirs: dict[str, str]) -> str | None:
    """The first environment variable that differs, named, or ``None``."""
    for name in sorted(ours.keys() | theirs.keys()):
        if ours.get(name) != theirs.get(name):
            if name not in theirs:
                return f"environment variable {name} is set for the daemon, not here"
            if name not in ours:
                return f"environment variable {name} is set here, not for the daemon"
            return f"environment variable {name} has another value here"
    return None
