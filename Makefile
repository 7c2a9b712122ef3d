# The two commands a newcomer needs: `make lab` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The stamp is rebuilt whenever pyproject.toml changes, so `make` reinstalls only then.
STAMP  := $(VENV)/.installed-stamp

.PHONY: venv lab test bench release grade clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "minitorch needs Python 3.10 or newer (found " + sys.version.split()[0] + "); set PYTHON=python3.X")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

venv: $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=. notebooks/00_welcome.ipynb

# Library tests, then under nbval: every lesson (stored outputs compared, after sanitising what
# differs between machines), every solution notebook (must run clean) and every untouched
# exercise (may fail only in the cells release tagged raises-exception: stubs and graded
# tests). Two workers; a notebook's cells stay together on one worker.
NBVAL := --nbval --nbval-current-env --nbval-cell-timeout=120 --nbval-sanitize-with tests/nbval_sanitize.cfg
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile $(NBVAL) tests notebooks solutions exercises $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

# Instructors: exercises/ is generated from solutions/ (never edited by hand) ...
release: $(STAMP)
	$(BIN)/python -m minitorch_course.release $(RELEASE_ARGS)

# ... and a folder of submitted notebooks is graded in one command:
#   make grade CLASS=submissions/ EXERCISE=03_strides [OUT=grades/] [GRADE_ARGS="--timeout 3"]
#   (EXERCISE=all, or a list 03_strides,05_views: each into OUT/NAME/, and one OUT/course.csv)
OUT ?= grades
grade: $(STAMP)
	@test -n "$(CLASS)" -a -n "$(EXERCISE)" || { echo "usage: make grade CLASS=folder-of-notebooks EXERCISE=03_strides [OUT=grades]"; exit 2; }
	$(BIN)/python -m minitorch_course.grade $(CLASS) --exercise $(EXERCISE) --out $(OUT) $(GRADE_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
