"""Book tests: the helpers in book_rules.py are made importable here."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
