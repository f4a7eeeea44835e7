"""Querysets compiled to SQL once, then run again with another value.

A miss of the state cache (the first read of a room's state after a change,
for one viewer and language) reads the room, its seats, its match, the
match's games and their turns through the ORM, and building and compiling
those querysets was nearly half of a miss's CPU (docs/LOAD.md). Their SQL
never changes but for one value: the room's slug, the room's or the match's
id. Each is compiled once from the queryset itself (so it follows the
models), built with a marker where that value goes; its SQL, its parameters
and its columns are kept. Run, it is one execute on Django's cursor (counted
and wrapped as any query); each row is converted as the ORM converts it (the
compiler's own converters) and made an instance with Model.from_db, its
annotations set on it, as Django's ModelIterable does; or a dict, as
ValuesIterable does for values().

Compiled once per connection object Django hands the caller (one for each
of gunicorn's threads): the compiler and its converters belong to the
connection they were made with, so no thread runs with another's. What
this does not rebuild is refused when compiling: select_related, extra(),
values_list(), and a marker that is not exactly one of the parameters.
"""

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.core.exceptions import EmptyResultSet
from django.db import connections, models, router
from django.db.models.sql.compiler import SQLCompiler

M = TypeVar("M", bound=models.Model)

# Where the value goes: a value no lookup transforms, and inside every integer
# column's range (Django answers a lookup out of a column's range with no query
# at all). Whatever row it may name, it is replaced before the query runs.
INT_MARKER = 29_017
TEXT_MARKER = "\x1fprepared-marker\x1f"

Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class Prepared(Generic[M]):
    """One queryset's SQL and what its rows become."""

    alias: str
    sql: str
    params: tuple[Any, ...]
    slot: int  # the marker's place in params
    converters: tuple[tuple[int, tuple[Converter, ...], Any], ...]  # (column, chain, expression)
    model: type[M] | None  # None: values() rows, as dicts
    init_list: tuple[str, ...]  # the model's attribute names, in the row's order
    model_columns: tuple[int, int]  # where the model's columns are in the row
    annotations: tuple[tuple[str, int], ...]  # (attribute, column)
    names: tuple[str, ...]  # values(): each column's key

    def rows(self, value: object) -> list[list[Any]]:
        params = list(self.params)
        params[self.slot] = value
        connection = connections[self.alias]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = [list(row) for row in cursor.fetchall()]
        for index, chain, expression in self.converters:
            for row in rows:
                for convert in chain:
                    row[index] = convert(row[index], expression, connection)
        return rows

    def instances(self, value: object) -> list[M]:
        """The model's instances, as iterating the queryset would give them."""
        assert self.model is not None, "a values() query gives dicts"
        start, end = self.model_columns
        found = []
        for row in self.rows(value):
            instance = self.model.from_db(self.alias, list(self.init_list), row[start:end])
            for attribute, column in self.annotations:
                setattr(instance, attribute, row[column])
            found.append(instance)
        return found

    def dicts(self, value: object) -> list[dict[str, Any]]:
        """The rows as values() would give them."""
        assert self.model is None, "a model query gives instances"
        return [dict(zip(self.names, row, strict=True)) for row in self.rows(value)]


def prepared(
    key: Hashable,
    model: type[M],
    build: Callable[[Any], "models.QuerySet[M]"],
    marker: object = INT_MARKER,
) -> Prepared[M]:
    """`build(marker)`'s queryset compiled, once per `key` and connection (kept on
    the connection object: the thread's own). The key names everything the
    queryset depends on besides the marked value."""
    alias = router.db_for_read(model)
    kept = connections[alias].__dict__.setdefault("_mesa_prepared", {})
    found: Prepared[M] | None = kept.get(key)
    if found is None:
        queryset = build(marker)
        if queryset.db != alias or queryset.model is not model:
            raise ValueError("prepared: the queryset is not of the model and database named")
        found = kept[key] = _compile(queryset, marker)
    return found


def _compile(queryset: "models.QuerySet[M]", marker: object) -> Prepared[M]:
    query = queryset.query
    if query.select_related or query.extra:
        raise ValueError("prepared: no select_related or extra()")
    compiler: SQLCompiler = query.get_compiler(using=queryset.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        raise ValueError("prepared: the queryset compiles to no query") from None
    slots = [index for index, param in enumerate(params) if param == marker]
    if len(slots) != 1:
        raise ValueError(f"prepared: the marker is {len(slots)} of the parameters, not one")
    select = compiler.select[: compiler.col_count]
    converters = tuple(
        (index, tuple(chain), expression)
        for index, (chain, expression) in sorted(
            compiler.get_converters([column[0] for column in select]).items()
        )
    )
    values = queryset._iterable_class is not models.query.ModelIterable
    if values:
        if queryset._iterable_class is not models.query.ValuesIterable:
            raise ValueError("prepared: models or values(), not values_list()")
        names = (*query.extra_select, *query.values_select, *query.annotation_select)
        return Prepared(
            queryset.db, sql, tuple(params), slots[0], converters, None, (), (0, 0), (), names
        )
    klass = compiler.klass_info
    assert klass is not None
    fields: Sequence[int] = klass["select_fields"]
    start, end = fields[0], fields[-1] + 1
    init_list = tuple(column[0].target.attname for column in compiler.select[start:end])
    annotations = tuple(compiler.annotation_col_map.items())
    return Prepared(
        queryset.db,
        sql,
        tuple(params),
        slots[0],
        converters,
        klass["model"],
        init_list,
        (start, end),
        annotations,
        (),
    )
