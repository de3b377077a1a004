"""pmcshim region markers for Python (standard library only).

    import pmcshim

    with pmcshim.region("solve"):       # a block
        solve()

    @pmcshim.region("step")             # every call of a function
    def step(): ...

    pmcshim.begin("io"); read(); pmcshim.end("io")

Run the program under the shim (``pmcshim python3 app.py``, or
LD_PRELOAD=libpmcshim.so): each region then counts calls, wall time and
counters per thread, exactly as the C markers do. The module finds the
shim once, at import, through ctypes and the C function ``pmcshim_api``
(include/pmcshim.h, struct pmcshim_api, version 1); it never loads the
shim itself. Without the shim every marker does nothing (an attribute
test) and the program runs unchanged.

A region's name is looked up once per ``region`` object (per name for
``begin``/``end``); regions nest per thread, and an end must close the
thread's innermost open region, as in C. See pmcshim(3).

What it cannot do: attribute regions per asyncio task. Tasks take turns on
one thread, and a region open across an ``await`` stays open while other
tasks run: their regions nest inside it and its time includes theirs.
Mark the code between awaits, or run a task's work in a thread
(``asyncio.to_thread``), where regions are per thread as usual.
"""

import ctypes
import functools

__all__ = ["region", "begin", "end", "active", "API_VERSION"]

API_VERSION = 1


class _Api(ctypes.Structure):
    """struct pmcshim_api; fields are only ever added, so a prefix is safe."""
    _fields_ = [("version", ctypes.c_uint), ("size", ctypes.c_uint),
                ("region", ctypes.c_void_p), ("begin_id", ctypes.c_void_p),
                ("end_id", ctypes.c_void_p), ("begin", ctypes.c_void_p),
                ("end", ctypes.c_void_p)]


def _find_api():
    """The shim's table when it is in this process (preloaded), else None."""
    try:
        scope = ctypes.PyDLL(None)      # dlopen(NULL): the global scope
        get = scope.pmcshim_api
    except (OSError, AttributeError):
        return None
    get.restype = ctypes.POINTER(_Api)
    get.argtypes = [ctypes.c_uint]
    api = get(API_VERSION)
    if not api or api.contents.version != API_VERSION or not api.contents.end_id:
        return None
    return scope, api.contents


def _fn(scope, address, restype=None, argtypes=None):
    """A foreign function at address. PyDLL's kind keeps the GIL across the
    call (a marker is short and never blocks; letting the GIL go and taking
    it back would cost more than the marker). The id markers get no
    argtypes: a small int passes as is, without a conversion per call."""
    f = scope._FuncPtr(address)
    f.restype = restype
    if argtypes:
        f.argtypes = argtypes
    return f


_found = _find_api()
# Bound once: the markers below test one global and make one foreign call.
if _found:
    _scope, _api = _found
    _region_fn = _fn(_scope, _api.region, ctypes.c_uint, [ctypes.c_char_p])
    _begin_id = _fn(_scope, _api.begin_id)
    _end_id = _fn(_scope, _api.end_id)
else:
    _api = _region_fn = _begin_id = _end_id = None
_ids = {}   # name -> id, for begin()/end()


def _encode(name):
    if isinstance(name, str):
        return name.encode("utf-8", "surrogateescape")
    if isinstance(name, bytes):
        return name
    raise TypeError("pmcshim: a region name is str or bytes, not %s" % type(name).__name__)


def _lookup(name):
    """The shim's id of name; 0 without the shim, or while it cannot name
    one yet (not kept: asked again next time)."""
    rid = _ids.get(name)
    if not rid:
        rid = _region_fn(_encode(name)) if _region_fn else 0
        if rid:
            _ids[name] = rid
    return rid


def active():
    """True when the program runs under the shim."""
    return _api is not None


def begin(name):
    """Begin region name on this thread."""
    if _begin_id:
        _begin_id(_lookup(name))


def end(name):
    """End region name, the innermost open one of this thread."""
    if _end_id:
        _end_id(_lookup(name))


class region(object):
    """A named region: ``with region(name):`` marks the block (ended however
    it is left, exceptions included); ``@region(name)`` marks each call of
    the decorated function. One object may serve any number of threads and
    nested or recursive uses: it holds only the name's id."""

    __slots__ = ("name", "_id")

    def __init__(self, name):
        _encode(name)   # a bad name fails here, with or without the shim
        self.name = name
        self._id = _lookup(name) if _begin_id else 0

    def _ask(self):
        self._id = _lookup(self.name)
        return self._id

    def __enter__(self):
        if _begin_id:
            _begin_id(self._id or self._ask())
        return self

    def __exit__(self, exc_type, exc, tb):
        if _end_id:
            _end_id(self._id or self._ask())
        return False

    def __call__(self, fn):
        if not _begin_id:
            return fn
        this = self

        @functools.wraps(fn)
        def marked(*args, **kwargs):
            _begin_id(this._id or this._ask())
            try:
                return fn(*args, **kwargs)
            finally:
                _end_id(this._id or this._ask())
        return marked

    def __repr__(self):
        return "pmcshim.region(%r)" % (self.name,)
