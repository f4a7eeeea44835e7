"""The embedded broker of `make run`: kombu's filesystem transport, safe for several processes.

kombu's own transport (kombu.transport.filesystem) lets a consumer take a
message file while its producer is still writing it. `_put` creates the file
under its final name and only then writes into it; `_get` moves any file with
the right name away and reads it at once, taking no lock. A worker that came
in between read an empty or half-written file and died of the JSON error
("Unrecoverable error: JSONDecodeError('Expecting value: line 1 column 1
(char 0)')"), and the producer's bytes went into a file already gone: the
message was lost too. Its exchange tables have the same flaw: a new table is
opened with truncation before it is locked, so a publisher reading it at that
moment finds nothing to parse.

Here every file is written whole under a name no reader picks (a dot name
without the ".msg" ending) and renamed into place (`os.replace`, atomic on
one file system), so a reader sees a whole message or none. A consumer claims
a message by renaming it into its claimed folder (on the same file system,
unlike kombu's move to the system's temporary folder, which may be another
and is then a copy that two consumers can both make), so exactly one consumer
gets it. A file that still cannot be read (written by kombu's transport
before the switch, or cut short by a power cut) is set aside in the claimed
folder with an error in the log, instead of stopping the worker.

Selected by settings.CELERY_BROKER_TRANSPORT for `filesystem://` URLs.
"""

from __future__ import annotations

import fcntl
import logging
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

UNREADABLE_SUFFIX = ".unreadable"


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` as `path` in one step: under a hidden name first, then renamed."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")
    try:
        with open(temporary, "xb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def queue_order(name: str) -> tuple[float, str]:
    """Oldest first: by the time that starts the name, as a number.

    Sorted as text, "1_a" would come after "12_b" ('_' sorts after the digits),
    and a clock that gains a digit would reorder the queue.
    """
    stamp, _, rest = name.partition("_")
    try:
        return (float(stamp), rest)
    except ValueError:
        return (float("inf"), name)


def claimed_folder(options: dict[str, Any]) -> Path:
    """Where consumers take messages to read them: beside the queue, on its file system."""
    folder = options.get("claimed_folder")
    return Path(folder) if folder else Path(options.get("data_folder_in", "data_in")) / ".claimed"


class Channel(filesystem.Channel):
    """kombu's filesystem channel with whole writes and claims by rename."""

    # kombu's stubs give its virtual and filesystem channels different signatures
    # for _put and get_table; these follow the filesystem channel's.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        # kombu's name: the time orders the queue, the queue's name ends it.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        try:
            write_whole(Path(self.data_folder_out) / name, dumps(payload).encode())
        except OSError as error:
            raise ChannelError(f"Cannot add {name!r} to the queue") from error

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        wanted = f"{queue}.msg"
        folder = Path(self.data_folder_in)
        for name in sorted(os.listdir(folder), key=queue_order):
            if name.partition(".")[2] != wanted:
                continue
            claimed = self.claimed_folder / name
            try:
                os.rename(folder / name, claimed)
            except FileNotFoundError:
                continue  # another consumer claimed it first
            try:
                payload = loads(claimed.read_bytes())
            except (OSError, ValueError) as error:
                aside = claimed.with_name(name + UNREADABLE_SUFFIX)
                os.replace(claimed, aside)
                logger.error("Set aside an unreadable message of %s as %s: %s", queue, aside, error)
                continue
            if self.store_processed:
                os.replace(claimed, Path(self.processed_folder) / name)
            else:
                claimed.unlink()
            return payload
        raise Empty()

    @property
    def claimed_folder(self) -> Path:
        return claimed_folder(self.transport_options)

    @contextmanager
    def _tables_locked(self) -> Iterator[None]:
        """One writer of the exchange tables at a time, across processes."""
        self.control_folder.mkdir(parents=True, exist_ok=True)
        with open(self.control_folder / ".lock", "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _table_file(self, exchange: str) -> Path:
        """kombu's file of an exchange's table, its name checked as kombu checks it."""
        file: Path = self._exchange_file(exchange)  # type: ignore[attr-defined]  # kombu 5.7
        return file

    def get_table(self, exchange: str) -> list[filesystem.exchange_queue_t]:  # type: ignore[override]
        # Tables are replaced whole (below): reading needs no lock.
        try:
            table = loads(self._table_file(exchange).read_bytes())
        except FileNotFoundError:
            return []
        except OSError as error:
            raise ChannelError(f"Cannot read the table of {exchange!r}") from error
        return [filesystem.exchange_queue_t(*row) for row in table]

    def _queue_bind(
        self, exchange: str, routing_key: str | None, pattern: str | None, queue: str | None
    ) -> None:
        row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with self._tables_locked():
            table = self.get_table(exchange)
            if row not in table:
                write_whole(self._table_file(exchange), dumps([row, *table]).encode())

    def _delete(
        self, queue: str, exchange: str, routing_key: str, pattern: str, *args: Any, **kwargs: Any
    ) -> None:
        # The virtual channel's own bookkeeping, then the table without this binding.
        super(filesystem.Channel, self)._delete(
            queue, exchange, routing_key, pattern, *args, **kwargs
        )
        row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with self._tables_locked():
            table = self.get_table(exchange)
            if row in table:
                table.remove(row)
                write_whole(self._table_file(exchange), dumps(table).encode())


class Transport(filesystem.Transport):
    Channel = Channel
    # Celery's worker loop waits for messages 2 s at a time and looks for a
    # stop only between two waits: shorter waits let Ctrl-C stop it at once.
    longest_wait = 0.25

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        claimed_folder(client.transport_options).mkdir(parents=True, exist_ok=True)

    # The virtual transport's signature (kombu's stubs give its base another).
    def drain_events(self, connection: Any, timeout: float | None = None) -> None:  # type: ignore[override]
        if timeout is None or timeout > self.longest_wait:
            timeout = self.longest_wait
        super().drain_events(connection, timeout=timeout)
