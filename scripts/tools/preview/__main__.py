import sys

from scripts.tools.preview import main

sys.exit(main())
