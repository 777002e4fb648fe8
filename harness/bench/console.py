"""The bench console: a local web page for the operator, served on 127.0.0.1 with a per-run token.

It shows the current instruction in large type, the stacking sheet with card faces (suit symbols,
red and black) or the wager sheet, a countdown to the prompt's deadline, the device events as they
arrive, and the run's progress; its buttons answer Done, Cannot or Abort.  It is a front end of the
prompt model (:mod:`harness.bench.prompts`), beside the terminal.

Only 127.0.0.1 is bound.  Every request for the page and the API must carry the run's token (a
``token`` query parameter, or the ``X-Tablecert-Token`` header the page's script sends), compared
in constant time; a request whose ``Host`` is not the loopback address is refused (a web page
elsewhere cannot reach the console through DNS rebinding).  The page, its script and its style
sheet are files under ``harness/bench/static/``; the API is two calls::

    GET  /api/state?since=N   -> run, progress, the current prompt, device events after N
    POST /api/answer          {"prompt": "p00012", "answer": "done", "operator": "J. Doe", "note": ""}
"""

from __future__ import annotations

import json
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from harness.bench.prompts import Answer, Prompt, PromptBroker

STATIC = Path(__file__).resolve().parent / "static"
FILES = {"/": ("console.html", "text/html; charset=utf-8"),
         "/console.js": ("console.js", "text/javascript; charset=utf-8"),
         "/console.css": ("console.css", "text/css; charset=utf-8")}
HOST = "127.0.0.1"
MAX_BODY = 16_384


class BenchConsole:
    """Serve the console for ``broker`` until :meth:`close` (see the module docstring)."""

    name = "bench console"

    def __init__(self, broker: PromptBroker, port: int = 0, token: str | None = None) -> None:
        self.broker = broker
        self.token = token or secrets.token_urlsafe(24)
        console = self

        class Handler(_Handler):
            owner = console

        self.server = ThreadingHTTPServer((HOST, port), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="bench-console", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    # the front-end interface: the page polls, so offering and withdrawing need do nothing
    def offer(self, prompt: Prompt) -> None:
        pass

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        pass

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(2.0)


class _Handler(BaseHTTPRequestHandler):
    owner: BenchConsole
    server_version = "tablecert-console"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the console is quiet; the record keeps every answer

    # ------------------------------------------------------------------ checks

    def _allowed(self, query: dict[str, list[str]]) -> bool:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in (HOST, "localhost"):
            self._send_json(HTTPStatus.FORBIDDEN, {"error": "the console answers on 127.0.0.1 only"})
            return False
        given = self.headers.get("X-Tablecert-Token") or (query.get("token") or [""])[0]
        if not secrets.compare_digest(given.encode(), self.owner.token.encode()):
            self._send_json(HTTPStatus.FORBIDDEN, {"error": "a valid token is required (see the run's output)"})
            return False
        return True

    # ------------------------------------------------------------------ answers

    def _headers(self, status: int, ctype: str, length: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy",
                         "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                         "frame-ancestors 'none'")
        self.end_headers()

    def _send_json(self, status: int, data: Any) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self._headers(status, "application/json; charset=utf-8", len(body))
        self.wfile.write(body)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path in ("/console.js", "/console.css"):  # static, no run data: no token needed
            self._file(url.path)
            return
        if not self._allowed(query):
            return
        if url.path == "/":
            self._file("/")
        elif url.path == "/api/state":
            try:
                since = int((query.get("since") or ["0"])[0])
            except ValueError:
                since = 0
            self._send_json(HTTPStatus.OK, self.owner.broker.snapshot(since))
        else:
            self._send_json(HTTPStatus.NOT_FOUND, {"error": "no such page"})

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        if not self._allowed(parse_qs(url.query)):
            return
        if url.path != "/api/answer":
            self._send_json(HTTPStatus.NOT_FOUND, {"error": "no such call"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                raise ValueError("body too large or empty")
            data = json.loads(self.rfile.read(length))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            problem = self.owner.broker.answer(str(data.get("prompt", "")), str(data.get("answer", "")),
                                               operator=str(data.get("operator") or "")[:120],
                                               note=str(data.get("note") or ""), front_end=self.owner.name)
        except ValueError as exc:
            self._send_json(HTTPStatus.BAD_REQUEST, {"error": f"bad request: {exc}"})
            return
        if problem:
            self._send_json(HTTPStatus.CONFLICT, {"error": problem})
        else:
            self._send_json(HTTPStatus.OK, {"ok": True})

    def _file(self, path: str) -> None:
        name, ctype = FILES[path]
        body = (STATIC / name).read_bytes()
        self._headers(HTTPStatus.OK, ctype, len(body))
        self.wfile.write(body)
