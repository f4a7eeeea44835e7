"""Run every benchmark module in this package: the engine first, then the rest by name."""

import importlib
import pkgutil
import sys

import bench


def main() -> int:
    names = sorted(
        info.name for info in pkgutil.iter_modules(bench.__path__) if not info.name.startswith("_")
    )
    names.sort(key=lambda name: name != "engine")
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        run = getattr(module, "run", None)
        if callable(run):
            print(f"== bench.{name}")
            run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
