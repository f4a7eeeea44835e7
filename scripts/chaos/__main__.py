"""python -m scripts.chaos: `make chaos`."""

import sys

from scripts.chaos.cli import main

sys.exit(main())
