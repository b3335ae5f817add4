"""``python -m irscore`` is the ``irscore`` command."""
import sys

from irscore.cli import main

sys.exit(main())
