"""The test suite, a package: helpers are imported by module name (`from tests.bookkit
import make_book`). docs/testing.md maps each folder to the stage it tests."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]      # the repository under test
