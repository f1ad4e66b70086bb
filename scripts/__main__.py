"""`python -m scripts <command>`: see scripts/cli.py."""
import os
import sys

from scripts.cli import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:
    # The reader of stdout went away (`make html | head -1`): the book is not at fault.
    # Python would report the closed pipe again while flushing stdout at exit, so
    # stdout goes to /dev/null first.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 1
sys.exit(status)
