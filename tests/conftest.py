"""Test isolation: every test gets its own config and index folders, no network."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.paths import FIXTURES

if TYPE_CHECKING:
    from convo_tui.core.library import Library

XDG_DIRS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}

# Set before any test module imports the app or fastembed.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
# Pilot waits for the app to go idle after every key and every pause: it sleeps
# in windows of 20 ms until one passes with under 1 ms of CPU, so each key
# typed cost at least 40 ms of a worker doing nothing (a fifth of the app
# tier's time). Windows of 5 ms end those waits four times sooner; the app
# draws at 240 frames a second so that a pending screen update (and the
# `call_after_refresh` callbacks it runs) still falls inside one window, as it
# does with Textual's defaults (60 frames, windows of 20 ms). The programs the
# end-to-end tests start inherit the frame rate; what they show is the same.
os.environ["TEXTUAL_FPS"] = "240"  # not a default: the windows below are cut to it
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
# No command leaves a holder running after it (cli/keep_warm.py); tests of it turn it on.
os.environ["CONVO_TUI_KEEP_WARM"] = "0"
os.environ["NO_COLOR"] = os.environ.get("NO_COLOR", "")

IDLE_WINDOW_S = 0.005  # Pilot's idle windows (above, TEXTUAL_FPS)


def _shorter_idle_windows() -> None:
    import textual._wait

    assert hasattr(textual._wait, "SLEEP_GRANULARITY"), "Textual's idle check moved: see tests/conftest.py"
    textual._wait.SLEEP_GRANULARITY = IDLE_WINDOW_S
    textual._wait.SLEEP_IDLE = IDLE_WINDOW_S / 20  # idle: under 5% of a window busy, as in Textual


_shorter_idle_windows()

# A suite started in the background (`nohup pytest &`, some CI runners) starts
# with SIGINT ignored, and every process it spawns inherits that: a `serve` then
# rightly ignores Ctrl+C (cli/interrupts.py) and the tests of Ctrl+C fail. The
# tests run as a foreground program does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The run's temp folders go to a RAM-backed folder where the machine has one
# with room: every test opens Edge indexes, whose loads drop their files' pages
# from the page cache (Memory.Cold), so on a disk each new open faults them in
# again. On the project's 2-core machine the suite took 635 s on disk (332 s
# of it system time: 376k major faults in test_conversations.py alone) and
# 382 s here (143 s). The code under test is the same; on a file system in
# memory it takes its own path for the room a load needs (space.open_reserve).
# The suite holds up to 6 GB of temp files at once, hence the room asked for.
# `--basetemp` chooses otherwise.
RAM_TEMP = Path("/dev/shm")
RAM_TEMP_FREE = 8 * 1024**3  # bytes free on the RAM file system
RAM_AVAILABLE = 12 * 1024**3  # and memory available to the machine (the tests' processes need theirs too)


def _available_memory() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _ram_basetemp() -> Path | None:
    try:
        usage = shutil.disk_usage(RAM_TEMP)
    except OSError:
        return None
    if usage.free < RAM_TEMP_FREE or _available_memory() < RAM_AVAILABLE or not os.access(RAM_TEMP, os.W_OK | os.X_OK):
        return None
    _forget_old_runs()
    return RAM_TEMP / f"convo-tui-tests-{os.getuid()}-{os.getpid()}"


def _forget_old_runs() -> None:
    """What earlier failed runs kept (gigabytes of memory) goes when the next run starts,
    as pytest keeps only its last few basetemps on a disk. A run still going keeps its own."""
    for folder in RAM_TEMP.glob(f"convo-tui-tests-{os.getuid()}-*"):
        pid = folder.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# The RAM folder this run chose, and whether the run passed (set by the controller only).
_RAM_FOLDER = pytest.StashKey[Path]()
_PASSED = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # The controller chooses; xdist gives each worker a folder below its choice.
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        folder = _ram_basetemp()
        if folder is not None:
            config.option.basetemp = folder
            config.stash[_RAM_FOLDER] = folder


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_PASSED] = exitstatus == 0
    warming = session.config.stash.get(_WARMING, None)
    if warming is not None:
        warming.join()


# The whole suite's first tests wait for the run's model cache (12 s of building
# it, one core): the controller starts it as soon as its workers' folders exist,
# so that it is built while they import and collect the tests.
_WARMING = pytest.StashKey[threading.Thread]()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodeready(node) -> None:
    config = node.config
    whole_suite = config.args_source is pytest.Config.ArgsSource.TESTPATHS and not config.option.markexpr
    if _WARMING in config.stash or not whole_suite or config.option.basetemp is None:
        return
    shared = Path(config.option.basetemp)  # what the workers' `_shared_dir` is: their basetemps' parent
    warming = threading.Thread(target=_build_once, args=(shared / "model-cache", _make_model_cache), daemon=True)
    config.stash[_WARMING] = warming
    warming.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    """A RAM folder is memory: removed after a passing run; a failed one keeps it and says where."""
    folder = config.stash.get(_RAM_FOLDER, None)
    if folder is None:
        return
    if config.stash.get(_PASSED, False):
        shutil.rmtree(folder, ignore_errors=True)
    else:
        print(f"\nthis run's temp folders are kept in {folder} (in memory, until the next run starts)")


TIERS = ("unit", "engine", "tui", "e2e")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test carries its tier's marker (the folder it lives in): `-m unit`, `-m "not e2e"`."""
    for item in items:
        tier = next((part for part in item.path.parts[-3:-1] if part in TIERS), None)
        if tier is not None:
            item.add_marker(tier)


def _point_home_at(patch: pytest.MonkeyPatch, home: Path) -> None:
    patch.setenv("HOME", str(home))
    patch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name, sub in XDG_DIRS.items():
        patch.setenv(name, str(home / sub))
    # The other tools' own overrides would point discovery out of the temp home.
    for name in (
        "CODEX_HOME",
        "APPDATA",
        "LOCALAPPDATA",
        "GEMINI_CLI_HOME",
        "COPILOT_HOME",
        "PI_CODING_AGENT_DIR",
        "GOOSE_PATH_ROOT",
        "QWEN_RUNTIME_DIR",
        "QWEN_HOME",
        "KIMI_SHARE_DIR",
        "OPENHANDS_CONVERSATIONS_DIR",
        "OPENHANDS_PERSISTENCE_DIR",
    ):
        patch.delenv(name, raising=False)
    home.mkdir(exist_ok=True)


WATCHED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@pytest.fixture(autouse=True)
def signal_handlers_restored() -> Iterator[None]:
    """A test that leaves a signal's handler changed fails, and the handler is put back.
    A SIGINT left ignored in a worker is inherited by every process it starts after:
    a `serve` that ignores Ctrl+C; the same for a signal left blocked (a random-order
    run had three tests fail on Ctrl+C, far from whatever changed it)."""
    before = {signum: signal.getsignal(signum) for signum in WATCHED_SIGNALS}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    changed = [signal.Signals(signum).name for signum, handler in before.items() if signal.getsignal(signum) is not handler]
    for signum, handler in before.items():
        if handler is not None:
            signal.signal(signum, handler)
    now_blocked = signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if changed:
        pytest.fail(f"the test left the handler of {', '.join(changed)} changed", pytrace=False)
    if now_blocked != blocked:
        pytest.fail(f"the test left signals blocked: {sorted(s.name for s in now_blocked - blocked)}", pytrace=False)


# -- The models' graphs, made once per run -------------------------------------
# The first process that embeds on a machine makes the int8 graphs and their
# optimised copies in the user's cache (core/embed/int8.py, minilm_onnx.py):
# 2-4 s a model. Every test has a home of its own, so each made them again (60
# times a run, a minute of the suite's time on two workers). One run makes them
# once, into a folder of its own, and each test's cache links to it. Tests of
# the cache itself take a fresh one: `@pytest.mark.own_model_cache`.
MODEL_CACHE_PART = Path(".cache") / "convo-tui" / "onnx"
WARM_MODELS = """
from convo_tui.core.embed.dense import DenseEmbedder
from convo_tui.core.embed import e5_onnx
for model in (DenseEmbedder(), DenseEmbedder(quantized=False)):
    model.embed_documents(["a text"])
e5 = e5_onnx.load()
if e5 is not None:
    e5.embed_documents(["a text"])
"""


def _make_model_cache(folder: Path) -> None:
    """Run in a process of its own: it loads every model, the tests need none of that memory."""
    import subprocess
    import sys

    env = {**os.environ, "HOME": str(folder / "home")}
    env.update({name: str(folder / "home" / sub) for name, sub in XDG_DIRS.items()})
    subprocess.run([sys.executable, "-c", WARM_MODELS], env=env, check=True, timeout=300)


@pytest.fixture(scope="session")
def model_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The run's folder of model graphs; None when no collected test loads a model (`-m unit`)."""
    if all(item.get_closest_marker("unit") for item in request.session.items):
        return None
    built = built_once(tmp_path_factory, "model-cache", _make_model_cache)
    return built / "home" / MODEL_CACHE_PART


def _link_model_cache(home: Path, cache: Path | None) -> None:
    if cache is not None:
        (home / MODEL_CACHE_PART).parent.mkdir(parents=True, exist_ok=True)
        (home / MODEL_CACHE_PART).symlink_to(cache, target_is_directory=True)


@pytest.fixture(scope="session", autouse=True)
def isolated_session_home(tmp_path_factory, model_cache):
    """A temp home for module- and session-scoped fixtures, which run before
    the per-test one below (a shared Library loads the model: its cache)."""
    with pytest.MonkeyPatch.context() as patch:
        home = tmp_path_factory.mktemp("session-home") / "home"
        _point_home_at(patch, home)
        _link_model_cache(home, model_cache)
        yield


@pytest.fixture(autouse=True)
def isolated_dirs(request, tmp_path_factory, monkeypatch, model_cache):
    root = tmp_path_factory.mktemp("convo-home")
    monkeypatch.setenv("CONVO_TUI_CONFIG", str(root / "config.toml"))
    monkeypatch.setenv("CONVO_TUI_INDEX_DIR", str(root / "index"))
    # Keep discovery of the tools' default places, and every cache, config or
    # data folder a library picks from HOME or XDG_*, inside the temp home: no
    # test writes into the real one (onnxruntime, fastembed, platformdirs).
    _point_home_at(monkeypatch, root / "home")
    if not request.node.get_closest_marker("own_model_cache"):
        _link_model_cache(root / "home", model_cache)
    yield root


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


# -- Shared indexes (built once per run with the real model) ------------------------
# Building an index embeds every text with the real model, the slowest part of the
# suite. Each index below is built once per run, by whichever xdist worker asks
# first (the others wait on a file lock), then every worker opens its own copy of
# the folder, once per session, shared by the modules that use it. A test that
# changes such an index must undo its change (or build its own index).

RELEVANCE = FIXTURES / "relevance"
# Cursor transcripts are dated by their file's mtime: fixed dates, at noon UTC so
# they fall on the same day in every zone, for the after:/before: filters.
RELEVANCE_MTIMES = {
    "rag-chunking": 1767614400,  # 2026-01-05 12:00 UTC
    "qdrant-setup": 1768910400,  # 2026-01-20 12:00 UTC
}


def _shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this run that every xdist worker sees (each has its own basetemp)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder `name`, filled by `build(folder)` the first time any worker asks for it."""
    return _build_once(_shared_dir(tmp_path_factory) / name, build)


def _build_once(folder: Path, build: Callable[[Path], None]) -> Path:
    with open(folder.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / ".built").touch()
    return folder


def open_copy(tmp_path_factory: pytest.TempPathFactory, built: Path, settings: Settings) -> Library:
    """A worker's own Library over a copy of a built index folder, model loaded."""
    from convo_tui.core.library import Library

    from tests.helpers.index_copy import copy_index

    copy = copy_index(built / "index", tmp_path_factory.mktemp(built.name) / "index")
    settings.index_dir = copy
    library = Library.open(settings)
    library.load_model()
    return library


def build_demo(folder: Path, model: str = DEFAULT_MODEL) -> None:
    from convo_tui.core.library import Library

    from tests.helpers.demo_corpus import copy_demo

    corpus = copy_demo(folder)
    with Library.open(Settings(index_dir=folder / "index", sources=[corpus], discover_defaults=False, model=model)) as library:
        library.load_model()
        report = library.index()
        assert report.sessions == 15, report.skipped


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Library]]:
    """(settings, open Library) over the demo corpus (tests/helpers/demo_corpus.py: fixed mtimes)."""
    built = built_once(tmp_path_factory, "demo-index", build_demo)
    settings = Settings(sources=[built / "corpus"], discover_defaults=False, debounce_ms=0, model=DEFAULT_MODEL)
    library = open_copy(tmp_path_factory, built, settings)
    yield settings, library
    library.close()


@pytest.fixture(scope="session")
def demo_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the demo index built once per run (`corpus/` and `index/`): copy it before use."""
    return built_once(tmp_path_factory, "demo-index", build_demo)


def build_relevance(folder: Path) -> None:
    from convo_tui.core.library import Library

    shutil.copytree(RELEVANCE, folder / "src")
    for name, stamp in RELEVANCE_MTIMES.items():
        path = next((folder / "src").rglob(f"{name}.txt"))
        os.utime(path, (stamp, stamp))
    with Library.open(Settings(index_dir=folder / "index", model=DEFAULT_MODEL)) as library:
        library.index([folder / "src"])


@pytest.fixture(scope="session")
def relevance_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """An open Library over tests/fixtures/relevance (English and Chinese, 6 sessions)."""
    built = built_once(tmp_path_factory, "relevance-index", build_relevance)
    library = open_copy(tmp_path_factory, built, Settings(model=DEFAULT_MODEL))
    yield library
    library.close()


def build_demo_auto(folder: Path) -> None:
    build_demo(folder, model=Settings().model)


@pytest.fixture(scope="module")
def demo_copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Library]]:
    """(settings, open Library) over a module's own writable copy of the demo index,
    built once per run with the default model (`auto`: the demo's Chinese picks e5),
    dates shown in UTC. For app tests that edit sessions or re-index."""
    from tests.helpers.demo_corpus import utc_clock

    built = built_once(tmp_path_factory, "demo-index-auto", build_demo_auto)
    with utc_clock():
        library = open_copy(tmp_path_factory, built, Settings(sources=[built / "corpus"], discover_defaults=False))
        yield library.settings, library
        library.close()
