"""What nbgrader imports and grading never uses, imported at its first use: its Jupyter server extensions, requests
and setuptools' archive_util.

``import nbgrader`` (which any ``nbgrader.x`` import runs first) imports its four server extensions, for a Jupyter
server to find their ``load_jupyter_server_extension``; they import the exchange, the gradebook, nbgrader's apps and
Jupyter Server's handlers: about 0.5 s of CPU in every process of the kit that only reads a course's folders
(``nbgrader.coursedir``), ``grade``'s own process among them, which serves no Jupyter page.  Here the import
system makes each of the four a stand-in (:class:`Deferred`) until something uses it: its
``load_jupyter_server_extension`` (what nbgrader's own ``_load_jupyter_server_extension`` calls) or any other name
imports the real module then, in its place; a submodule (``...formgrader.apihandlers``) imports from the real folder
as always.  A process that imported nbgrader before the kit keeps it as it is.

Two more of nbgrader's imports wait for their first use the same way, each about 0.05 s of CPU in every process that
imports ``nbgrader.api`` (``grade``'s own and its workers' fork server among them): ``requests``, which only nbgrader's
JupyterHub authenticator calls (the stand-in is a :class:`Deferred` too), and ``setuptools.archive_util``, whose three
unpacking functions ``nbgrader.utils`` takes by name as it is imported and calls only to unzip an archive
(:func:`archive_util_stand_in`: each name calls the real function, which imports setuptools then)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

EXTENSIONS = frozenset(
    f"nbgrader.server_extensions.{name}"
    for name in ("assignment_list", "course_list", "validate_assignment", "formgrader")
)
DEFERRED = EXTENSIONS | {"requests"}
ARCHIVE_UTIL = "setuptools.archive_util"
ARCHIVE_FUNCTIONS = ("unpack_archive", "unpack_tarfile", "unpack_zipfile")  # what nbgrader.utils takes by name


class Deferred(types.ModuleType):
    """Stands for one of :data:`DEFERRED` until one of its names is read."""

    def load_jupyter_server_extension(self, *args, **kwargs):
        return self.real().load_jupyter_server_extension(*args, **kwargs)

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(self.real(), attribute)

    def real(self) -> types.ModuleType:
        """The real module, imported now in place of this one (and set on its package, as an import does)."""
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        FINDER.passed.add(name)
        return importlib.import_module(name)


class DeferringFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        self.passed: set[str] = set()

    def find_spec(self, name, path=None, target=None):
        if name not in DEFERRED or name in self.passed:
            return None
        real = importlib.machinery.PathFinder.find_spec(name, path)
        if real is None:
            return None
        spec = importlib.machinery.ModuleSpec(name, self, is_package=True)
        spec.submodule_search_locations = real.submodule_search_locations  # its submodules: the real ones
        return spec

    def create_module(self, spec):
        return Deferred(spec.name)

    def exec_module(self, module):
        pass


FINDER = DeferringFinder()


def archive_util_stand_in() -> Deferred:
    """A :class:`Deferred` for ``setuptools.archive_util`` (put in ``sys.modules`` itself: its package, setuptools,
    is not imported), with each of :data:`ARCHIVE_FUNCTIONS` a function that calls the real one."""
    module = Deferred(ARCHIVE_UTIL)

    def calling(name: str):
        def function(*args, **kwargs):
            return getattr(module.real(), name)(*args, **kwargs)

        function.__name__ = function.__qualname__ = name
        return function

    for name in ARCHIVE_FUNCTIONS:
        setattr(module, name, calling(name))
    return module


def defer_server_extensions() -> None:
    """Install the finder and the stand-in for setuptools' archive_util, unless nbgrader is imported already."""
    if "nbgrader" not in sys.modules and FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)
        if ARCHIVE_UTIL not in sys.modules and "setuptools" not in sys.modules:
            sys.modules[ARCHIVE_UTIL] = archive_util_stand_in()
