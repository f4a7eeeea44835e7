# Mesa: the two commands of the README, and a few helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint install messages

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

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check .

# The site on 127.0.0.1:8000 with a Celery worker and beat beside it, on the
# embedded defaults (SQLite, filesystem broker, email on the console), with
# DEBUG on unless set, so static files are served without collectstatic.
# runserver stays in the foreground; when it stops (Ctrl-C) the trap stops the
# worker too, and waits for it to finish its current task.
run: export DEBUG ?= true
run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	@trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT INT TERM; \
	$(BIN)/celery -A config worker --beat --concurrency=2 -Q celery,analysis --loglevel=INFO & worker=$$!; \
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# After changing site text: refresh the catalogs, translate the new entries in
# locale/en (locale/es repeats the Spanish source), then compile. Commit the
# .po and the .mo files, so a machine without gettext still serves English.
messages: export DEBUG ?= true
messages: $(STAMP)
	$(BIN)/python manage.py makemessages -l es -l en --no-location \
		--ignore=.venv --ignore=bench --ignore=staticfiles
	$(BIN)/python manage.py compilemessages --ignore=.venv
