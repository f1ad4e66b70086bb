"""`python -m booktools.mutation`."""
import sys

from booktools.mutation.cli import main

sys.exit(main())
