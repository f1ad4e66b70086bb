"""`python -m scripts.tools.mutation`."""
import sys

from scripts.tools.mutation.cli import main

sys.exit(main())
