# Mesa: the two commands of the README, and a few helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-engine bench botload duel cube-ladder lint typecheck install messages chaos load

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Reinstall only when a requirements file changed.
$(STAMP): $(BIN)/python requirements.txt requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The rules engine's tests in a venv of their own without Django (pytest,
# Hypothesis and bgsage at the pinned versions): the engine stays pure Python.
# The ignored warning is pytest's about the Django settings option it lacks.
ENGINE_VENV := .venv-engine
$(ENGINE_VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(ENGINE_VENV)
	$(ENGINE_VENV)/bin/pip install --quiet \
		$$(grep -hE '^(pytest|hypothesis|bgsage)==' requirements.txt requirements-dev.txt)
	touch $@

test-engine: $(ENGINE_VENV)/.installed
	$(ENGINE_VENV)/bin/python -m pytest tests/engine -W ignore::pytest.PytestConfigWarning $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench

# The bots' worker under load (bench/botload.py): games against each bot, a person
# answering every 15 s, the kit's worker settings; a bot turn's wall time, the
# turns nudged or killed, and the capacity docs/DEPLOY.md sizes the worker by.
# BOTLOAD_ARGS="--games 10 --seconds 300" for a longer run.
botload: $(STAMP)
	nice -n 5 $(BIN)/python -m bench.botload $(BOTLOAD_ARGS)

# Strength against GNU Backgammon (apt-get install gnubg; without it they say so
# and stop): Empresario against World class in duplicate-dice matches to 5 and 7,
# 20 minutes per run, appended to bench/results/ (run again to go on; 100 pairs =
# the 200-match target). Then the weak levels' cube graded by bgsage 3-ply and gnubg.
DUEL_ARGS ?= --bot empresario --plies 2 --pairs 100 --minutes 20
duel: $(STAMP)
	nice -n 19 $(BIN)/python -m bench.duel $(DUEL_ARGS)

cube-ladder: $(STAMP)
	nice -n 19 $(BIN)/python -m bench.cube_ladder --matches 30 --gnubg 2

# The browser's JS: typed with JSDoc and checked by tsc (jsconfig.json, no emit),
# linted by eslint (eslint.config.js); both pinned in package-lock.json and
# installed with npm ci only when the lock changed.
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

lint: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	node_modules/.bin/tsc -p jsconfig.json --noEmit
	node_modules/.bin/eslint static/js tests/js

# mypy with django-stubs over the site, as configured in pyproject.toml (strict
# on the engine, the bots, the analysis, config and bench; every type: ignore
# must still be needed). Then stubtest: the stubs in typings/ still match the
# installed bgsage, django-environ and whitenoise.
typecheck: $(STAMP)
	$(BIN)/mypy
	DJANGO_SETTINGS_MODULE=config.settings.test MYPYPATH=typings $(BIN)/python -m mypy.stubtest \
		--ignore-missing-stub bgsage bgbot_cpp environ whitenoise.storage pywebpush

# The site on RUN_ADDR (127.0.0.1:8000) with four Celery workers and beat beside
# it, on the embedded defaults (SQLite, filesystem broker, email on the console),
# with DEBUG on unless set, so static files are served without collectstatic.
# One worker reads the bots queue (a search in one thread per process,
# BGBOT_MULTIPLY_THREADS=1), one (with beat) the sweeps, one the mail queue, one
# the analysis, so a slow mail server, a long analysis or a sweep never holds up
# a bot (settings.CELERY_TASK_ROUTES). config/embedded.py runs the five, each in a
# process group of its own: Ctrl-C or SIGTERM stops them all within seconds,
# and when one of them stops by itself the others stop too.
RUN_ADDR ?= 127.0.0.1:8000
run: export DEBUG ?= true
run: $(STAMP)
	$(BIN)/python manage.py createcachetable  # before migrate, whose checks want it (config/checks.py)
	$(BIN)/python manage.py migrate --noinput
	exec $(BIN)/python -m config.embedded \
		"env BGBOT_MULTIPLY_THREADS=1 $(BIN)/celery -A config worker -n bots@%h -Q bots \
			--concurrency=2 --without-gossip --without-mingle --loglevel=INFO" \
		"$(BIN)/celery -A config worker --beat -n sweeps@%h -Q sweeps --concurrency=1 \
			--without-gossip --without-mingle --loglevel=INFO" \
		"$(BIN)/celery -A config worker -n mail@%h -Q mail --concurrency=1 \
			--without-gossip --without-mingle --loglevel=INFO" \
		"$(BIN)/celery -A config worker -n analysis@%h -Q analysis --concurrency=1 \
			--without-gossip --without-mingle --loglevel=INFO" \
		"$(BIN)/python manage.py runserver $(RUN_ADDR)"

# The fault scenarios against real processes on 127.0.0.1 (a PostgreSQL and a
# Redis of its own, gunicorn, workers, two beats, an SMTP server it hangs and
# stops): docs/OPERATIONS.md. CHAOS_ARGS="--only two-beats" runs one scenario.
chaos: $(STAMP)
	$(BIN)/python -m scripts.chaos $(CHAOS_ARGS)

# The load benchmark (bench/load/, docs/LOAD.md): nginx from deploy/nginx's
# template in front of gunicorn and uvicorn as deploy/systemd starts them, on
# PostgreSQL and Redis (ports 19100+, database mesa_load, dropped at the end,
# Redis db 2 unless told), 2,000 waiting boards, 50 players, readers, 150 s;
# the servers on core 0, the generator on core 1, same priority; --nodes 2.
# LOAD_ARGS="--boards 500" etc.
LOAD_ARGS ?=
load: $(STAMP)
	$(BIN)/python -m bench.load $(LOAD_ARGS)

# After changing site text: refresh the catalogs, translate the new entries in
# locale/en (locale/es repeats the Spanish source), then compile. Commit the
# .po and the .mo files, so a machine without gettext still serves English.
# Text the code no longer has leaves the catalogs (--no-obsolete): git keeps it.
messages: export DEBUG ?= true
messages: $(STAMP)
	$(BIN)/python manage.py makemessages -l es -l en --no-location --no-obsolete \
		--ignore=.venv --ignore=bench --ignore=staticfiles
	$(BIN)/python manage.py compilemessages --ignore=.venv
