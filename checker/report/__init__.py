"""Report writers: the view-model (`data`) and one writer per format; `render_all` is the
entry point the command line calls."""

from checker.report.render import Outputs, render_all

__all__ = ["Outputs", "render_all"]
