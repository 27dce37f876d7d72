# Two commands do all the set-up: `make demo` and `make test`. Both create .venv/ when it is missing.
# PYTHON picks the interpreter the environment is made from (`make setup PYTHON=python3.12`);
# VENV where it goes (CI makes a second one with another interpreter).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# nbgrader needs `alembic` (and `jupyter`) on PATH when it creates a gradebook.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: setup lint test test-fast smoke demo build mutants bench lock clean screenshots

# Stops at once, before anything is installed, on an interpreter outside pyproject's requires-python.
define CHECK_PYTHON
import re, sys
spec = re.search(r'requires-python\s*=\s*"([^"]+)"', open("pyproject.toml").read()).group(1)
low = tuple(int(n) for n in re.search(r">=\s*(\d+)\.(\d+)", spec).groups())
high = tuple(int(n) for n in re.search(r"<\s*(\d+)\.(\d+)", spec).groups())
if not low <= sys.version_info[:2] < high:
    sys.exit("make setup: %s is Python %s; the kit supports Python %d.%d to %d.%d (requires-python %s).\n"
             "Pick another interpreter, e.g. `make setup PYTHON=python3.12` (a command name or a path)."
             % (sys.executable, sys.version.split()[0], *low, high[0], high[1] - 1, spec))
endef
export CHECK_PYTHON

setup: $(STAMP)

# Installed again when the lock changes (into the same .venv); made anew when PYTHON is given and
# names another Python than the one .venv has.
VERSION_OF = $(shell $(1) -c 'import sys; print(sys.version)' 2>/dev/null)
ifneq ($(filter command line environment,$(origin PYTHON)),)
ifneq ($(call VERSION_OF,$(PYTHON)),$(call VERSION_OF,$(PY)))
STALE := FORCE
endif
endif

# the interpreter to check: .venv's own when it is kept, else PYTHON
BASE = $(if $(and $(wildcard $(PY)),$(if $(STALE),,kept)),$(PY),$(PYTHON))

$(STAMP): requirements.lock pyproject.toml $(STALE)
	@command -v $(BASE) >/dev/null 2>&1 || { echo "make setup: no interpreter '$(BASE)' on PATH; name one with PYTHON=..." >&2; exit 2; }
	@$(BASE) -c "$$CHECK_PYTHON"
	@if [ -n "$(STALE)" ] && [ -x $(PY) ]; then echo "$(VENV) was made by another Python: making it again with $(PYTHON)"; rm -rf $(VENV); fi
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && apt-get install -y -qq bubblewrap); } \
	  || echo "note: bubblewrap (bwrap) is missing, and installing it needs root. Ask an administrator for the package" \
	          "'bubblewrap' (Debian/Ubuntu: apt-get install bubblewrap; Fedora/RHEL: dnf install bubblewrap)." \
	          "Until then, grading refuses to run student code; AUTOGRADER_SANDBOX=off grades without a sandbox," \
	          "and student code then runs with your permissions (see docs/install.md)." >&2
	@$(BASE) -c "import ctypes.util, sys; sys.exit(not ctypes.util.find_library('seccomp'))" \
	  || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && apt-get install -y -qq libseccomp2); } \
	  || echo "note: libseccomp (the kernels' system-call filter) is missing, and installing it needs root. Ask an" \
	          "administrator for the package 'libseccomp2' (Debian/Ubuntu: apt-get install libseccomp2; Fedora/RHEL:" \
	          "dnf install libseccomp). Until then, grading refuses to run student code (see docs/install.md)." >&2
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip>=24"
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

.PHONY: FORCE
FORCE:

# ruff, as configured in pyproject.toml: the lint rules and the formatter's layout (`ruff format .` applies it)
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# --durations=30: every run's log lists its slowest tests, to bring the suite to 10 minutes on 2 cores (14 now)
# (tests/conftest.py hands the dearest out first, DEAREST_FIRST). Three workers on two cores: a good part of the
# suite waits (a hung grading's silence, a cell timeout, a server starting), and a third worker's tests run meanwhile
test: lint
	$(PY) -m pytest -n 3 -q --durations=30

# The edit loop: the in-process tests only (no kernel, no server, no browser; tests/conftest.py
# IN_PROCESS says which), in under two minutes.
test-fast: setup
	$(PY) -m pytest -n 2 -q -m inprocess

# The pictures of docs/browser.md and docs/students.md, taken by the browser tests (they save every step
# under .screens/): the self-check's diagnosis in a cell, the class report, a feedback page (its summary, a failed cell).
SHOTS := self-check-diagnosis-cell class-report feedback-summary feedback-diagnosis
screenshots: setup
	rm -f $(SHOTS:%=.screens/%.png)
	$(PY) -m pytest -q -p no:cacheprovider tests/test_browser.py
	mkdir -p docs
	for s in $(SHOTS); do cp .screens/$$s.png docs/$$s.png; done

# The install on another interpreter, in short: the build check, a reference and a stub graded.
smoke: setup
	$(PY) -m pytest -q -m smoke -p no:cacheprovider

demo: setup
	$(PY) -m autograder demo

build: setup
	$(PY) -m autograder build

mutants: setup
	$(PY) -m autograder mutants

bench: setup
	$(PY) benchmarks/bench_grading.py
	$(PY) benchmarks/bench_small_jobs.py

# Resolves requirements.lock again, one file for every Python in requires-python (markers pick per
# interpreter). uv is the resolver; installing stays plain pip.
lock: setup
	$(PY) -m pip install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.10 \
	  --no-annotate --no-header --quiet -o requirements.lock

clean:
	rm -rf $(VENV) .ci-venv-* .pytest_cache .scratch
