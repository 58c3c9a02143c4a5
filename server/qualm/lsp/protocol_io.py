"""The JSON-RPC layer under the server: every request gets an answer, even one whose params do not
fit its method's type.

pygls structures each incoming message before any handler sees it; when a request's params do not
fit (a position that is a string, a missing text document), it logs the error and answers nothing,
and the client waits for that request forever. Here such a request is answered with the JSON-RPC
error Invalid Params (-32602), naming the method.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol


class AnsweringProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException:
            if _is_request(data):
                answer = JsonRpcInvalidParams(f"Invalid Params: the params of {data['method']} do not fit its type")
                self._send_response(data["id"], error=answer.to_response_error())
            raise


def _is_request(data: dict[str, Any]) -> bool:
    return "jsonrpc" in data and "id" in data and "method" in data and "result" not in data and "error" not in data
