"""Strategy plug-ins: find the strategy files, load and check them.

A strategy is a Python file in a strategies folder — the built-ins shipped in
``mexsim/strategy/builtin/``, a ``strategies/`` folder in the working directory (the
drop-in folder), the folders a config names, ``--strategies DIR`` — that defines NAME,
DESCRIPTION, PARAMS and ``decide``, compiled with ``mexsim.strategy.api.strategy`` (see
that module). Adding one never touches ``mexsim/``. Loading imports numba, so this module is only
imported by commands that need strategies (``mexsim --help`` stays light).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import math
import os
import re
import sys
import threading
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from mexsim.errors import ConfigError, StrategyFileWarning, Terminated
from mexsim.game.strategy_limits import MAX_MEMORY, MAX_PARAMS
from mexsim.jit.compile_notice import compiling
from mexsim.jit.options import checks_bounds
from mexsim.strategy.origin import (
    BUILTIN_FOLDER,
    BUILTIN_PACKAGE,
    USER_MODULE_PREFIX,
    is_builtin,
    kernel_calling,
)

DROP_IN_FOLDER = "strategies"  # looked for in the working directory
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class StrategyInfo:
    """A loaded strategy: its metadata and its compiled ``decide`` function."""

    name: str
    description: str
    params: dict[str, float] = field(default_factory=dict)
    # the lowest and highest value a config may give each parameter (PARAMS may declare
    # them as (default, lowest, highest)); a parameter not listed takes any finite value
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    memory: int = 0  # words of the view's MEMORY block kept between decisions
    path: str = ""
    # the files its code comes from: ``path``, then the helper files of the user's its
    # decide reaches (mexsim.strategy.sources), all in the run id
    sources: tuple[str, ...] = ()
    decide: Any = field(default=None, compare=False, repr=False)
    # a built-in's decide for given parameter values (None: ``decide`` for all): one
    # whose other forms are compiled only when a run asks for them (longest_train)
    decide_for: Any = field(default=None, compare=False, repr=False)
    # a built-in's decide that also prints why it chose, for given parameter values
    # (None: it explains nothing), compiled only when `replay --moves` asks for it
    explained_for: Any = field(default=None, compare=False, repr=False)
    # a built-in's parameter that a config may also give as a strategy's name (search's
    # rollout): ``named_param`` is it, ``named_values`` the names that are numbers of it,
    # ``decide_naming`` the built-in's function giving the decide that plays any other
    # named strategy (see ``naming``); "" and None for every other strategy
    named_param: str = ""
    named_values: dict[str, float] = field(default_factory=dict)
    decide_naming: Any = field(default=None, compare=False, repr=False)
    # what ``naming`` gave it: "rollout mine" (messages name it with the strategy)
    named: str = ""
    # derived from ``decide`` once, when the strategy is loaded (and again for a copy
    # with another decide): whether it is a shipped strategy's (trusted: it writes
    # nothing of the view to undo), and how the kernel asks it (game.enums.Calling)
    trusted: bool = field(init=False, compare=False, repr=False)
    calling: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        func = getattr(self.decide, "py_func", None)
        object.__setattr__(self, "trusted", func is not None and is_builtin(func))
        object.__setattr__(self, "calling", kernel_calling(func))

    def decide_with(self, params: tuple[float, ...]) -> Any:
        """The compiled decide that plays with these parameter values."""
        return self.decide if self.decide_for is None else self.decide_for(params)

    def naming(self, other: StrategyInfo) -> StrategyInfo:
        """This strategy with its ``named_param`` naming ``other`` (search rolling out
        with a user's strategy): a decide compiled for ``other``'s (at its default
        values), cached on disk and fresh while ``other``'s files are what they are; its
        code comes from both strategies' files."""
        from mexsim.game.signature import ready
        from mexsim.strategy.sources import sources_digest

        place = hashlib.sha1(os.fsencode(other.path)).hexdigest()[:12]
        with compiling(f"strategy {self.name} with {self.named_param} {other.name}"):
            decide = self.decide_naming(
                ready(other.decide_with(tuple(other.params.values()))),
                tuple(other.params.values()),
                f"{other.name}_{place}",
                sources_digest(other.sources),
                other.trusted,
            )
        return replace(
            self,
            decide=decide,
            decide_for=None,
            explained_for=None,
            sources=(*self.sources, *other.sources),
            named_param="",
            named_values={},
            decide_naming=None,
            named=f"{self.named_param} {other.name}",
        )


def strategy_dirs(extra: Iterable[str | Path] = ()) -> tuple[Path, ...]:
    """The built-ins, the working directory's ``strategies/`` (when there is one), then
    the extra folders, without repeats."""
    dirs: list[Path] = []
    drop_in = Path(DROP_IN_FOLDER)
    for d in (BUILTIN_FOLDER, *((drop_in,) if drop_in.is_dir() else ()), *extra):
        resolved = Path(d).expanduser().resolve()
        if resolved not in dirs:
            dirs.append(resolved)
    return tuple(dirs)


def refuse_missing_folders(dirs: Iterable[Path]) -> None:
    """A strategies folder given that is not a folder: one line, before any strategy
    compiles (on a cold cache that takes a minute or more)."""
    for folder in dirs:
        if folder != BUILTIN_FOLDER and not folder.is_dir():
            what = "is a file, not a folder" if folder.exists() else "not found"
            raise ConfigError(f"{folder}: strategies folder {what}")


def available_strategies(
    extra_dirs: Sequence[str | Path] = (), names: Iterable[str] | None = None
) -> dict[str, StrategyInfo]:
    """The strategies found (see :func:`strategy_dirs`), by name: those named in
    ``names`` (the others are not imported at all), or every one. A file that cannot be
    loaded is left out (see :func:`broken_strategies`); listing every strategy warns of
    it (StrategyFileWarning)."""
    return _loaded(strategy_dirs(extra_dirs), names)[0]


def broken_strategies(
    extra_dirs: Sequence[str | Path] = (), names: Iterable[str] | None = None
) -> dict[str, str]:
    """The files that could not be loaded, of those named in ``names`` (or of all): the
    strategy name each declares (its file's stem when even that cannot be read) -> the
    one-line error."""
    return _loaded(strategy_dirs(extra_dirs), names)[1]


def strategy_names(extra_dirs: Sequence[str | Path] = ()) -> list[str]:
    """Every strategy name the folders declare, sorted, read without running a file."""
    index = _index(strategy_dirs(extra_dirs))
    return sorted({*index.files, *index.unnamed})


def strategy_files(extra_dirs: Sequence[str | Path], names: Iterable[str]) -> list[Path]:
    """The files declaring these strategy names (a name no file declares: none), read
    without running a file."""
    index = _index(strategy_dirs(extra_dirs))
    return [index.files[name] for name in names if name in index.files]


@dataclass(frozen=True)
class _Index:
    files: dict[str, Path]  # the NAME a file declares -> the file
    unnamed: dict[str, str]  # a file's stem -> why its NAME cannot be read


@cache
def _index(dirs: tuple[Path, ...]) -> _Index:
    """The strategy files of the folders by the NAME each declares, read without
    running any: a file no config uses is never imported, so one that ends the process
    at import (os._exit) can only harm a command that plays it."""
    refuse_missing_folders(dirs)
    files: dict[str, Path] = {}
    unnamed: dict[str, str] = {}
    for folder in dirs:
        if not folder.is_dir():
            continue  # the built-ins' folder, in an installation without them
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            name = _declared_name(path)
            if name is None:
                if folder == BUILTIN_FOLDER:
                    raise ConfigError(f"{path}: a built-in strategy without a NAME line")
                unnamed.setdefault(path.stem, f"{path}: {UNNAMED}")
                continue
            if name in files:
                raise ConfigError(
                    f"{path}: strategy '{name}' is already defined in "
                    f"{files[name]} (names must be unique)"
                )
            files[name] = path
    return _Index(files, unnamed)


UNNAMED = (
    "no NAME = '...' line: a strategy file assigns its name as a string at the top "
    "level, where mexsim reads it without running the file (a helper module goes in a "
    "file whose name starts with '_')"
)


def _loaded(
    dirs: tuple[Path, ...], names: Iterable[str] | None
) -> tuple[dict[str, StrategyInfo], dict[str, str]]:
    index = _index(dirs)
    every = names is None
    wanted = set(index.files) | set(index.unnamed) if names is None else set(names)
    found: dict[str, StrategyInfo] = {}
    broken: dict[str, str] = {}
    for name in sorted(wanted):
        if name in index.files:
            path = index.files[name]
            loaded = _load_once(path, name)
            if isinstance(loaded, StrategyInfo):
                found[name] = loaded
                continue
            if path.parent == BUILTIN_FOLDER:
                raise ConfigError(loaded)  # mexsim itself is broken: no run should go on
            broken[name] = loaded
        elif name in index.unnamed:
            broken[name] = index.unnamed[name]
        else:
            continue
        if every:  # the listing of every strategy: say which files it leaves out
            warnings.warn(
                f"{broken[name]} (skipped: no config may use it until it is fixed)",
                StrategyFileWarning,
                stacklevel=3,
            )
    return found, broken


@cache
def _load_once(path: Path, name: str) -> StrategyInfo | str:
    """The file's strategy, or the one-line reason it cannot be loaded (once a process:
    a file is imported once)."""
    try:
        info = load_strategy_file(path)
    except ConfigError as exc:
        return str(exc)
    if info.name != name:
        return (
            f"{path}: NAME is {info.name!r} when the file runs but {name!r} as written "
            "at the top level: assign it once, as a string"
        )
    return info


@cache
def builtin_strategy_file(name: str) -> Path | None:
    """The built-in file that defines strategy ``name`` (None: no built-in does), found
    by reading each file's NAME without running it: a process that plays a few
    strategies (a Dask worker) loads only those."""
    if not BUILTIN_FOLDER.is_dir():
        return None
    return _index((BUILTIN_FOLDER,)).files.get(name)


def _declared_name(path: Path) -> str | None:
    """The NAME a strategy file assigns at the top level, as a string, read without
    running it; its stem when it cannot be parsed (importing it says why); None when it
    assigns none, or not as a string."""
    try:
        tree = ast.parse(path.read_bytes())  # one at a time: mexsim/jit/ast_guard.py
    except (SyntaxError, ValueError, OSError):
        return path.stem
    names: list[Any] = []
    for node in tree.body:
        value: ast.expr | None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "NAME" for t in targets):
            literal = isinstance(node, ast.Assign | ast.AnnAssign) and len(targets) == 1
            names.append(value.value if literal and isinstance(value, ast.Constant) else None)
    return names[-1] if names and all(isinstance(n, str) for n in names) else None


def load_strategy_file(path: Path) -> StrategyInfo:
    """Import one strategy file and check what it defines; ConfigError names the file."""
    module_name = strategy_module_name(path)
    if module_name.startswith(BUILTIN_PACKAGE):
        # imported as the package's own module: the one a user's strategy that calls
        # it imports too (maybe already), not a second with a decide of its own
        with compiling(f"strategy {path.stem}"):
            return _strategy_info(path, importlib.import_module(module_name))
    from mexsim.strategy import first_import

    if not first_import.IN_CHILD:  # it may end the process: a child imports it first
        with compiling(f"strategy {path.stem}"):  # the child compiles decide and vets it
            first_import.imported_in_child_first(path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path}: cannot be imported as a strategy")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    from numba.core.errors import NumbaError

    from mexsim.strategy.vetting import compile_error_line

    before = set(threading.enumerate())
    try:
        with compiling(f"strategy {path.stem}"):  # @strategy compiles decide at import
            spec.loader.exec_module(module)
    except NumbaError as exc:  # @strategy compiles decide as the file is imported
        del sys.modules[module_name]
        raise ConfigError(compile_error_line(path, exc)) from exc
    except SyntaxError as exc:
        del sys.modules[module_name]
        raise ConfigError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except ConfigError:  # mexsim's own refusal of the file, in its one line
        del sys.modules[module_name]
        raise
    except Exception as exc:  # a user's file: report it in one line, whatever it raised
        del sys.modules[module_name]
        raise ConfigError(
            f"{path}: importing the strategy failed: {type(exc).__name__}: {exc}"
        ) from exc
    except SystemExit as exc:  # not the command's exit: it would end mexsim silently
        del sys.modules[module_name]
        raise ConfigError(
            f"{path}: importing the strategy failed: it called "
            f"sys.exit({exc.code!r}); remove the call (a strategy file defines NAME, "
            "DESCRIPTION, PARAMS and decide)"
        ) from exc
    except (KeyboardInterrupt, Terminated):  # a signal while it imports: the command's
        del sys.modules[module_name]
        raise
    except BaseException as exc:  # GeneratorExit, a class of its own: no crash either
        del sys.modules[module_name]
        raise ConfigError(
            f"{path}: importing the strategy failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        _note_threads_left(path, before)
    if LEFT_THREADS.get(str(path)):
        del sys.modules[module_name]
        raise ConfigError(
            f"{path}: importing the strategy started a thread that is still "
            f"running ({LEFT_THREADS[str(path)]}): a strategy file may not "
            "start threads (remove it; mexsim ends without waiting for it)"
        )
    return _strategy_info(path, module)


# the threads a strategy file's import started and left running, by file: nothing of
# mexsim's waits for them, and the command ends without joining them (mexsim/cli.py)
LEFT_THREADS: dict[str, str] = {}


def _note_threads_left(path: Path, before: set[threading.Thread]) -> None:
    left = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    if left:
        LEFT_THREADS[str(path)] = ", ".join(t.name for t in left)


def strategy_module_name(path: Path) -> str:
    """The name a strategy file is imported under: stable across processes, as numba's
    on-disk cache keeps the name of the module a function was compiled in and imports
    it again to load the function. A built-in's is its name in the package, which any
    process can import (a user's strategy that calls it imports it so); a user's file
    gets one of its own, from the file's real path, not its spelling ('odd.py',
    './odd.py' or a full path: the cache is the same, and a name it was not written
    with failed to import)."""
    real = Path(os.path.realpath(path))
    if real.parent == BUILTIN_FOLDER and real.stem.isidentifier():
        return BUILTIN_PACKAGE + real.stem
    # os.fsencode: a name with bytes that are not UTF-8 (surrogate escapes) is its bytes
    digest = hashlib.sha1(os.fsencode(str(real))).hexdigest()[:12]
    # the stem's word characters only: numba's name mangler encodes the module's name in
    # UTF-8, which a name's surrogate escapes (bytes that are not UTF-8) cannot be
    stem = re.sub(r"\W", "_", path.stem)
    return f"{USER_MODULE_PREFIX}{stem}_{digest}"


def _strategy_info(path: Path, module: Any) -> StrategyInfo:
    """What an imported strategy file defines, checked; ConfigError names the file."""
    from mexsim.game.signature import DECIDE_SIGNATURE
    from mexsim.strategy.sources import user_sources
    from mexsim.strategy.vetting import vet_strategy

    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ConfigError(f"{path}: NAME must be a lower-case identifier string, got {name!r}")
    description = getattr(module, "DESCRIPTION", None)
    if not isinstance(description, str) or not description.strip():
        raise ConfigError(f"{path}: DESCRIPTION must be a non-empty one-line string")
    params, bounds = _params(path, getattr(module, "PARAMS", {}))
    memory = getattr(module, "MEMORY", 0)
    if isinstance(memory, bool) or not isinstance(memory, int) or not 0 <= memory <= MAX_MEMORY:
        raise ConfigError(f"{path}: MEMORY must be an integer 0..{MAX_MEMORY}, got {memory!r}")
    decide: Any = getattr(module, "decide", None)
    signatures = getattr(decide, "signatures", None)
    if getattr(decide, "compiled_when_called", False) and is_builtin(decide.py_func):
        signatures = [DECIDE_SIGNATURE.args]  # @strategy left it for its first call
    trusted = bool(signatures) and is_builtin(decide.py_func)
    if (
        not signatures
        or list(signatures) != [DECIDE_SIGNATURE.args]
        or checks_bounds(decide) == trusted
    ):
        raise ConfigError(
            f"{path}: 'decide' must be compiled with @mexsim.strategy.api.strategy "
            "(signature int64(int64[::1], float64[::1]))"
        )
    if not trusted:
        with compiling(f"strategy {path.stem}"):  # vetting plays it in the kernels
            vet_strategy(path, decide)
    return StrategyInfo(
        name=name,
        description=" ".join(description.split()),
        params=params,
        bounds=bounds,
        memory=memory,
        path=str(path),
        sources=(str(path), *map(str, user_sources(decide.py_func)[1:])),
        decide=decide,
        decide_for=_builtin_form(module, "decide_for") if trusted else None,
        explained_for=_builtin_form(module, "explained_for") if trusted else None,
        **(_named_param(module, params) if trusted else {}),
    )


def _named_param(module: Any, params: dict[str, float]) -> dict[str, Any]:
    """A built-in's parameter that a config may give as a strategy's name (NAMED_PARAM,
    NAMED_VALUES and decide_naming in its file: search's rollout), as StrategyInfo's
    fields; none for a file without one."""
    form = _builtin_form(module, "decide_naming")
    name = getattr(module, "NAMED_PARAM", "")
    if form is None or name not in params:
        return {}
    return {
        "named_param": name,
        "named_values": dict(module.NAMED_VALUES),
        "decide_naming": form,
    }


def _builtin_form(module: Any, name: str) -> Any:
    """The file's function ``name`` (decide_for, explained_for) if a built-in file
    defines it, else None. ``trusted`` says only that ``decide`` is a built-in's: a
    user's file may import one, and its own form would then pick unvetted code to play
    unchecked."""
    form: Any = getattr(module, name, None)
    code = getattr(form, "__code__", None)
    return form if code is not None and is_builtin(form) else None


def _params(path: Path, declared: Any) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """PARAMS as defaults and bounds: each value a number (the default, any finite value
    allowed) or a (default, lowest, highest) triple."""
    shape = (
        f"{path}: PARAMS must be a dict of at most {MAX_PARAMS} names to numbers or "
        "(default, lowest, highest) triples of finite numbers"
    )
    if not isinstance(declared, dict) or len(declared) > MAX_PARAMS:
        raise ConfigError(shape)
    defaults: dict[str, float] = {}
    bounds: dict[str, tuple[float, float]] = {}
    for key, value in declared.items():
        triple = tuple(value) if isinstance(value, tuple | list) else (value,)
        if (
            not isinstance(key, str)
            or len(triple) not in (1, 3)
            or not all(_finite_number(v) for v in triple)
        ):
            raise ConfigError(f"{shape}, got {key!r}: {value!r}")
        defaults[key] = float(triple[0])
        if len(triple) == 3:
            default, lowest, highest = (float(v) for v in triple)
            if not lowest <= default <= highest:
                raise ConfigError(
                    f"{path}: PARAMS[{key!r}] = {value!r}: the default must lie between the "
                    "lowest and the highest value, (default, lowest, highest)"
                )
            bounds[key] = (lowest, highest)
    return defaults, bounds


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
