import sys

from bookcheck.tools.preview import main

sys.exit(main())
