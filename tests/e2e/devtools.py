"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`: JSON messages ended by a NUL byte, commands on the browser's
fd 3, replies and events on its fd 4), for pages whose content a script draws after load
(tests/e2e/test_explorer.py: Model Explorer). No websocket, no extra package; the browser's
profile, home and cache live under the given directory (parallel-safe).

    with Browser(tmp_path) as b:
        page = b.open("http://127.0.0.1:8080/")
        page.wait_for("document.title === 'x'")
        page.evaluate("...")           # returnByValue
        page.screenshot(path)
        b.console                      # console messages, exceptions, log entries
        b.requests                     # every URL the page asked for
"""
from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest


def chromium() -> str:
    exe = shutil.which("chromium")
    if exe is None:
        pytest.skip("chromium not found (Debian: apt-get install chromium)")
    return exe


class DevToolsError(RuntimeError):
    pass


class Browser:
    """One headless Chromium; `open` gives a Page. Host names other than 127.0.0.1 resolve
    to nothing (`--host-resolver-rules`): a page cannot reach the network."""

    def __init__(self, tmp_path: Path, width: int = 1400, height: int = 900) -> None:
        self._cmd_r, self._cmd_w = os.pipe()   # we write commands; the browser reads fd 3
        self._out_r, self._out_w = os.pipe()   # the browser writes fd 4; we read
        cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--remote-debugging-pipe", "--hide-scrollbars",
               "--enable-unsafe-swiftshader",  # WebGL in software (no GPU): said, not warned
               "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
               f"--window-size={width},{height}",
               f"--user-data-dir={tmp_path / 'chromium-profile'}", "about:blank"]
        env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
               "XDG_CACHE_HOME": str(tmp_path / "cache")}
        cmd_r, out_w = self._cmd_r, self._out_w

        def fds() -> None:
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)

        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     pass_fds=(3, 4), preexec_fn=fds)
        os.close(self._cmd_r)
        os.close(self._out_w)
        self._next_id = 0
        self._replies: dict[int, queue.Queue] = {}
        self._lock = threading.Lock()
        self.console: list[str] = []
        self.requests: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # drain

    def _read(self) -> None:
        buf = b""
        while True:
            chunk = os.read(self._out_r, 1 << 16)
            if not chunk:
                return
            buf += chunk
            *msgs, buf = buf.split(b"\0")
            for raw in msgs:
                self._dispatch(json.loads(raw))

    def _dispatch(self, msg: dict) -> None:
        if "id" in msg:
            with self._lock:
                q = self._replies.get(msg["id"])
            if q is not None:
                q.put(msg)
            return
        method, p = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            self.console.append(f"console.{p['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.console.append(f"exception: {d.get('exception', {}).get('description') or d['text']}")
        elif method == "Log.entryAdded":
            e = p["entry"]
            self.console.append(f"log.{e['level']}: {e['text']} {e.get('url', '')}".strip())
        elif method == "Network.requestWillBeSent":
            self.requests.append(p["request"]["url"])

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict:
        with self._lock:
            self._next_id += 1
            mid = self._next_id
            q = self._replies[mid] = queue.Queue()
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        try:
            reply = q.get(timeout=timeout)
        except queue.Empty:
            raise DevToolsError(f"{method}: no reply in {timeout} s") from None
        finally:
            with self._lock:
                del self._replies[mid]
        if "error" in reply:
            raise DevToolsError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url: str) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        page = Page(self, session["sessionId"])
        for domain in ("Runtime", "Log", "Page", "Network"):
            page.send(f"{domain}.enable")
        page.send("Page.navigate", {"url": url})
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (DevToolsError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session

    def send(self, method: str, params: dict | None = None, timeout: float = 30.0) -> dict:
        return self.browser.send(method, params, self.session, timeout)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression (JSON-able; promises awaited)."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise DevToolsError(f"{expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0, what: str = ""):
        """Polls until the expression is truthy (an exception counts as false: the page may
        still be loading); returns its value."""
        end = time.monotonic() + timeout
        last = ""
        while True:
            try:
                value = self.evaluate(expression)
                if value:
                    return value
            except DevToolsError as e:
                last = str(e)
            if time.monotonic() > end:
                raise DevToolsError(f"{what or expression[:80]}: not true after {timeout} s "
                                    f"{last}; console: {self.browser.console[-5:]}")
            time.sleep(0.25)

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path
