"""copydetect's winnowing functions, loaded without copydetect's package.

``import copydetect`` runs its package ``__init__``, which imports its detector, and the detector imports
matplotlib.pyplot, tqdm and Jinja: 0.4 s of CPU in each graded run that compares notebooks, for functions
that need none of it.  The functions the kit uses live in ``copydetect/utils.py``, which imports only NumPy,
pygments and markupsafe (0.02 s).  :func:`utils` loads that module alone, and :func:`compare_files` is
copydetect's function of that name (in its detector) over those same functions.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import types


@functools.cache
def utils() -> types.ModuleType:
    """copydetect's ``utils`` module, its package's ``__init__`` not run.  The package is stood in for by a
    bare module while ``utils`` (and the winnow implementation it imports) loads; afterwards ``sys.modules`` is
    as before, so an ``import copydetect`` elsewhere gets the whole real package."""
    if "copydetect" in sys.modules:  # the whole package is already there: nothing to save
        return importlib.import_module("copydetect.utils")
    spec = importlib.util.find_spec("copydetect")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("copydetect is not installed: `make setup` installs the kit's dependencies")
    before = set(sys.modules)
    bare = types.ModuleType("copydetect")
    bare.__path__, bare.__spec__ = list(spec.submodule_search_locations), spec
    sys.modules["copydetect"] = bare
    try:
        return importlib.import_module("copydetect.utils")
    finally:
        for name in set(sys.modules) - before:
            if name == "copydetect" or name.startswith("copydetect."):
                del sys.modules[name]


def compare_files(a, b):
    """copydetect's ``compare_files`` of two fingerprints: the overlapping tokens of ``a``, each side's share
    of its own code that overlaps, and each side's overlapping slices in its unfiltered code."""
    import numpy as np

    u = utils()
    if a.k != b.k:
        raise ValueError("Code fingerprints must use the same noise threshold")
    idx_a, idx_b = u.find_fingerprint_overlap(a.hashes, b.hashes, a.hash_idx, b.hash_idx)
    slices_a, slices_b = u.get_copied_slices(idx_a, a.k), u.get_copied_slices(idx_b, b.k)
    if len(slices_a[0]) == 0:
        return 0, (0, 0), (np.array([]), np.array([]))
    overlap, shares = np.sum(slices_a[1] - slices_a[0]), []
    for fp, slices in ((a, slices_a), (b, slices_b)):
        shares.append(np.sum(slices[1] - slices[0]) / fp.token_coverage if len(fp.filtered_code) > 0 else 0)
        if len(fp.offsets) > 0:  # filtered positions back onto the unfiltered code
            where = np.clip(np.searchsorted(fp.offsets[:, 0], slices), 0, fp.offsets.shape[0] - 1)
            slices += fp.offsets[:, 1][where]
    return overlap, tuple(shares), (slices_a, slices_b)
