from __future__ import annotations

from pathlib import Path

import pytest

from attacks.answers_class import AnswersClass


@pytest.fixture(scope="session")
def answers_class(tmp_path_factory: pytest.TempPathFactory, canonical_dir: Path) -> AnswersClass:
    """The students of ``test_answers_stashed`` and ``test_answers_taken`` as one class, graded
    once per namespace mode for the session (``answers_class``)."""
    return AnswersClass(tmp_path_factory, canonical_dir)
