"""Canvas's names for the files of a download: ``<login>_[LATE_]<user id>_<submission id>_<file>[-N].<ext>``."""

from __future__ import annotations

import re

CANVAS = re.compile(r"^(?P<login>[A-Za-z0-9.\-]+?)_(?:LATE_)?(?P<user>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
RESUBMIT_SUFFIX = re.compile(r"-\d+$")  # a resubmission of the same file name: ``-1``, ``-2``, ...
