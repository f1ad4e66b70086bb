"""`python -m scripts <command>`: see scripts/cli.py."""
import sys

from scripts.cli import main

sys.exit(main())
