# The part of django-environ 0.14 that config/settings reads, typed from its
# signatures (it ships no py.typed): each setting gets the type of its
# reader. `make typecheck` runs stubtest to check this file against the
# installed package; a name missing here is an error where it is used.

import builtins
from pathlib import Path
from typing import IO, Any

class NoValue: ...

class Env:
    def __init__(self, **scheme: Any) -> None: ...
    def str(
        self,
        var: builtins.str,
        default: builtins.str | NoValue = ...,
        multiline: bool = False,
        choices: Any = ...,
    ) -> builtins.str: ...
    def bool(self, var: builtins.str, default: builtins.bool | NoValue = ...) -> builtins.bool: ...
    def int(self, var: builtins.str, default: builtins.int | NoValue = ...) -> builtins.int: ...
    def float(
        self, var: builtins.str, default: builtins.float | NoValue = ...
    ) -> builtins.float: ...
    # With no cast, the comma-separated values as strings (cast is left out here).
    def list(
        self,
        var: builtins.str,
        cast: None = None,
        default: builtins.list[builtins.str] | NoValue = ...,
    ) -> builtins.list[builtins.str]: ...
    # The settings dicts of DATABASES, CACHES and the EMAIL_* names.
    def db(
        self,
        var: builtins.str = "DATABASE_URL",
        default: builtins.str | NoValue = ...,
        engine: builtins.str | None = None,
    ) -> dict[builtins.str, Any]: ...
    def cache(
        self,
        var: builtins.str = "CACHE_URL",
        default: builtins.str | NoValue = ...,
        backend: builtins.str | None = None,
    ) -> dict[builtins.str, Any]: ...
    def email_url(
        self,
        var: builtins.str = "EMAIL_URL",
        default: builtins.str | NoValue = ...,
        backend: builtins.str | None = None,
    ) -> dict[builtins.str, Any]: ...
    @classmethod
    def read_env(
        cls,
        env_file: builtins.str | Path | IO[builtins.str] | None = None,
        overwrite: builtins.bool = False,
        parse_comments: builtins.bool = False,
        encoding: builtins.str = "utf8",
        **overrides: Any,
    ) -> None: ...
