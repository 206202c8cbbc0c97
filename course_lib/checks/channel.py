"""The in-process channel: ``check()`` in the learner's own notebook.

Requests and replies still travel as JSON text, exactly as they do to a grading kernel, so a
check cannot come to depend on something only one channel carries.
"""

from __future__ import annotations

import json
from typing import Any

from course_lib.checks.learner import ModelSession
from course_lib.driver import Driver


class InProcessChannel:
    def __init__(self, namespace: dict[str, Any]) -> None:
        self.sessions: dict[str, ModelSession] = {}
        self.driver = Driver(namespace, self._model)

    def add_session(self, session: ModelSession) -> None:
        self.sessions[session.id] = session

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        return json.loads(self.driver.handle_json(json.dumps(request, ensure_ascii=False)))

    def _model(self, message: dict[str, Any]) -> dict[str, Any]:
        session = self.sessions[str(message.get("session"))]
        return json.loads(json.dumps(session.answer(json.loads(json.dumps(message)))))
