"""Open a page in headless Chromium and collect what a reader's browser would complain
about: console errors, uncaught exceptions, log errors and requests for anything that is
not embedded in the page.

Chromium is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages separated by NUL bytes on file descriptors 3 and 4), which needs no driver
package and no network port.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageReport:
    console_errors: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    log_errors: list[str] = field(default_factory=list)
    # Every link as the browser parsed it: (protocol, resolved URL).
    links: list[tuple[str, str]] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    title: str = ""
    images: int = 0
    broken_images: int = 0

    @property
    def problems(self) -> list[str]:
        return self.console_errors + self.exceptions + self.log_errors + [f"request: {u}" for u in self.external_requests]


class _Pipe:
    def __init__(self, browser: str, profile: str):
        cmd_r, cmd_w = os.pipe()
        evt_r, evt_w = os.pipe()
        for fd in (cmd_w, evt_r):
            os.set_inheritable(fd, False)
        # Move the child's ends above 4 so that dup2 onto 3 and 4 cannot clobber them.
        child_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
        child_w = fcntl.fcntl(evt_w, fcntl.F_DUPFD, 10)
        os.close(cmd_r)
        os.close(evt_w)

        def wire() -> None:
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        args = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
        # close_fds=False: subprocess would otherwise close 3 and 4 after `wire` ran.
        self.proc = subprocess.Popen(args, close_fds=False, preexec_fn=wire, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(child_r)
        os.close(child_w)
        self.out = os.fdopen(cmd_w, "wb", buffering=0)
        self.events: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, args=(evt_r,), daemon=True)
        self.reader.start()

    def _read(self, fd: int) -> None:
        buf = b""
        with os.fdopen(fd, "rb", buffering=0) as f:
            while True:
                chunk = f.read(65536)
                if not chunk:
                    return
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    self.events.put(json.loads(raw))

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 20.0) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id, timeout)

    def wait(self, match, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                m = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(m)
            if match(m):
                if "error" in m:
                    raise RuntimeError(f"DevTools error: {m['error']}")
                return m
        raise TimeoutError("Chromium did not answer in time")

    def close(self) -> None:
        try:
            self.out.close()
        except OSError:
            pass
        # The browser's helper processes share its session: end them all.
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
                self.proc.wait(timeout=10)
                return
            except ProcessLookupError:
                return
            except subprocess.TimeoutExpired:
                continue


def render(path: Path, browser: str, settle_s: float = 1.0) -> PageReport:
    """Load `path` (a local HTML file) and report what went wrong while it rendered."""
    report = PageReport()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        pipe = _Pipe(browser, profile)
        try:
            targets = pipe.send("Target.getTargets")["result"]["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            session = pipe.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["result"]["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                pipe.send(f"{domain}.enable", session=session)
            pipe.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
            pipe.wait(lambda m: m.get("method") == "Page.loadEventFired", timeout=30)
            time.sleep(settle_s)
            probe = ("JSON.stringify({title: document.title, images: document.images.length, broken: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).length,"
                     " links: Array.from(document.links).map(a => [a.protocol, a.href])})")
            value = json.loads(pipe.send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=session)["result"]["result"]["value"])
            report.title, report.images, report.broken_images = value["title"], value["images"], value["broken"]
            report.links = [tuple(link) for link in value["links"]]
            while not pipe.events.empty():
                pipe.seen.append(pipe.events.get())
        finally:
            pipe.close()
    for m in pipe.seen:
        method, params = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            report.console_errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            report.exceptions.append(params.get("exceptionDetails", {}).get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            report.log_errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith(("data:", "file:", "about:")):
                report.external_requests.append(url)
    return report
