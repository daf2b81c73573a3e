"""Writing report files: atomically (temp file in the same folder, then `os.replace`), and
only inside the output folder or to the output file the user chose."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from checker.errors import OutputError

ReportWriteError = OutputError      # the name this module used before `OutputError`


def write_atomic(path: Path, content: str) -> None:
    """Replace `path` with `content` (UTF-8) in one step; a crash leaves the old file."""
    if path.is_dir():
        raise OutputError(f"cannot write the report to {str(path)!r}: it is a folder")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write the report to {str(path)!r}: "
                               f"{exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write the report to {str(path)!r}: "
                               f"{exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


write_text_atomic = write_atomic


def ensure_folder(folder: Path, what: str = "report") -> None:
    """Create `folder` (and its parents) for output files, or raise `OutputError` — before
    any file is written, so that a folder that cannot be made leaves nothing half-written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the {what} folder {str(folder)!r}: "
                          f"{exc.strerror or exc}") from None
    if not folder.is_dir():
        raise OutputError(f"cannot create the {what} folder {str(folder)!r}: "
                          "it is not a folder")


class OutputDir:
    """A folder that report files are written into, and only into."""

    def __init__(self, root: Path) -> None:
        if root.exists() and not root.is_dir():
            raise OutputError(f"the HTML report folder {str(root)!r} is a file; "
                                   "choose a folder with --html")
        self.root = root

    def path(self, name: str) -> Path:
        """The path of file `name` in the folder; `name` must be a plain file name."""
        if (not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name
                or name.startswith(".")):
            raise OutputError(f"refusing to write {name!r}: not a plain file name "
                                   f"inside {str(self.root)!r}")
        target = self.root / name
        real_root = self.root.resolve()
        if target.parent.resolve() != real_root:
            raise OutputError(f"refusing to write {str(target)!r}: it is outside "
                                   f"{str(self.root)!r}")
        return target

    def prepare(self) -> None:
        """Create the folder, or raise `OutputError` (before anything is written)."""
        ensure_folder(self.root)

    def write(self, name: str, content: str) -> Path:
        target = self.path(name)
        write_atomic(target, content)
        return target
