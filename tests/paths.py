"""Where the tests' files are, for every tier's modules."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures"
ROOT = TESTS.parent
