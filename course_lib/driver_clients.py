"""The real SDK clients the driver hands the learner's code: each HTTP request they make is
answered over a *model link* (in the notebook, the local model; when grading, the grader, over
the kernel's stdin channel), never over a network.

Split from ``course_lib.driver``, which still exports ``build_client``, ``DriverError`` and the
``LOCAL_*`` names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_lib.driver_values import error_reply

ModelLink = Callable[[dict[str, Any]], dict[str, Any]]

LOCAL_BASE_URL = "http://local-model.invalid/v1"
LOCAL_ANTHROPIC_BASE_URL = "http://local-model.invalid"  # the SDK adds /v1/messages itself
LOCAL_API_KEY = "local-model-needs-no-key"


class DriverError(Exception):
    """A request the driver cannot carry out (a check author's mistake, or a forged request):
    ``message`` is the key of its sentence in ``driver_values.MESSAGES``, ``fields`` fill it."""

    def __init__(self, message: str, **fields: Any) -> None:
        self.reply = error_reply(message, **fields)
        super().__init__(self.reply["error"])


class _LinkTransport:
    """An ``httpx2`` transport whose every request is answered over the model link."""

    def __init__(self, link: ModelLink, session: str) -> None:
        self.link, self.session = link, session

    def _exchange(self, method: str, path: str, headers: dict[str, str], body: bytes):
        answer = self.link(
            {
                "session": self.session,
                "method": method,
                "path": path,
                "headers": headers,
                "body": body.decode("utf-8", errors="replace"),
            }
        )
        return (
            int(answer["status"]),
            answer.get("content_type", "application/json"),
            answer["body"].encode("utf-8"),
        )


def _httpx2_transports(link: ModelLink, session: str):
    import httpx2

    base = _LinkTransport(link, session)

    def respond(request: Any) -> Any:
        status, content_type, content = base._exchange(
            request.method, request.url.path, dict(request.headers), request.read()
        )
        return httpx2.Response(
            status, headers={"content-type": content_type}, content=content, request=request
        )

    class Sync(httpx2.BaseTransport):
        def handle_request(self, request):
            return respond(request)

    class Async(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request):
            await request.aread()
            return respond(request)

    return Sync(), Async()


def build_client(link: ModelLink, session: str, api: str) -> Any:
    """A real SDK client whose HTTP requests go to the model ``session`` over ``link``."""
    if api in ("openai", "async_openai"):
        import openai

        base_url = LOCAL_BASE_URL
        classes = (openai.OpenAI, openai.AsyncOpenAI)
    elif api in ("anthropic", "async_anthropic"):
        import anthropic

        base_url = LOCAL_ANTHROPIC_BASE_URL
        classes = (anthropic.Anthropic, anthropic.AsyncAnthropic)
    else:
        raise DriverError("unknown_api", api=repr(api))
    import httpx2

    sync, async_ = _httpx2_transports(link, session)
    if api.startswith("async_"):
        client_class, http_client = classes[1], httpx2.AsyncClient(transport=async_)
    else:
        client_class, http_client = classes[0], httpx2.Client(transport=sync)
    return client_class(
        api_key=LOCAL_API_KEY, base_url=base_url, http_client=http_client, max_retries=0
    )
