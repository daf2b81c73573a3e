"""The seed texts are the customer's, byte for byte."""

import hashlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = {
    "eldfall-states.txt": "fb9e02be29808156eda9da38c5ae4b0ed8881d514029422c0a0394ecd6a957f3",
    "noctvale-conditions.txt": "4de017386cf56d5bb6c37e22e30d225b57b3cc138657c21f6ce431204664e226",
    "bushido-model-states.txt": "5364acadc069df6485a0477b044bd5e33f230f2fc755f03426360dab97f962e0",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seed_is_byte_identical(name: str) -> None:
    digest = hashlib.sha256((ROOT / "seeds" / name).read_bytes()).hexdigest()
    assert digest == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seed_readme_names_hash(name: str) -> None:
    readme = (ROOT / "seeds" / "README.md").read_text(encoding="utf-8")
    assert name in readme and EXPECTED[name] in readme
