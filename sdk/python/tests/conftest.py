import sys
from pathlib import Path

# The kit from this checkout, not an installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

pytest_plugins = ["slashd_testkit.pytest_plugin"]
