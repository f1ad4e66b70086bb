"""`python -m bookcheck <command>`, the same as the `bookcheck` command (cli.run)."""
from bookcheck.cli import run

run()
