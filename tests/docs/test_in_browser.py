"""The documentation site and the self-contained HTML animations, opened as a person opens
them: in headless Chromium (Debian's ``chromium`` package), over HTTP from a local server.

Every page must render — the title the HTML declares, a heading, some text after the
scripts ran — with no console error, no uncaught exception, and no request for a local file
that fails. The browser is driven by the DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages ended by a NUL byte on file descriptors 3 and 4),
so no Python package is needed, and one browser opens every page.

The site: ``STICKSLIP_SITE`` or ``build/site`` when it has an ``index.html`` (CI builds it
first), else one built here from ``build/figures`` (skipped when the figures are missing).
The animations: each ``examples/spatial/*.py`` run with ``--html`` (about 15 s each; they
share one writer, examples/spatial/_animate.py), or those named in ``STICKSLIP_ANIMATIONS``
(comma-separated script names, e.g. ``slide_to_rest``).
``STICKSLIP_SCREENSHOTS=<dir>`` saves screenshots there: the gallery, the executed notebook
(whole page) and one animation.
The whole file is ``slow`` and skips when chromium is not installed.
"""

from __future__ import annotations

import base64
import functools
import html
import http.server
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                 "(Debian: apt-get install -y chromium)")]


# --- a local server that remembers every request that failed ------------------------------------
class _Server:
    def __init__(self, directory: Path):
        self.failed: list[str] = []
        failed = self.failed

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, fmt, *args):          # quiet, but keep the failures
                if len(args) > 1 and str(args[1]).isdigit() and int(args[1]) >= 400:
                    failed.append(f"{args[1]} {self.path}")

        handler = functools.partial(Handler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# --- the browser, over the DevTools protocol --------------------------------------------------
class Browser:
    """Headless Chromium driven over ``--remote-debugging-pipe``."""

    def __init__(self, user_data: Path):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child_fds():                       # the protocol's pipes are fds 3 (in), 4 (out)
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)   # copies: never clobbered
            os.dup2(a, 3)                                       # (inheritable; every other
            os.dup2(b, 4)                                       # fd closes at exec)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--hide-scrollbars", f"--user-data-dir={user_data}", "--remote-debugging-pipe",
             "--window-size=1280,900", "about:blank"],
            close_fds=False, preexec_fn=child_fds,  # noqa: PLW1509 (os.dup/dup2 only)
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._messages: queue.Queue = queue.Queue()
        self._events: list[dict] = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=self.session)

    def _read(self):
        buffer = b""
        while chunk := os.read(self._from_chrome, 1 << 16):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for message in messages:
                self._messages.put(json.loads(message))
        self._messages.put(None)

    def call(self, method: str, session: str | None = None, timeout: float = 60.0, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._get(deadline, method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def _get(self, deadline: float, waiting_for: str) -> dict:
        try:
            reply = self._messages.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(f"chromium did not answer {waiting_for} in time") from None
        if reply is None:
            raise RuntimeError(f"chromium exited (code {self.process.poll()}) during "
                               f"{waiting_for}")
        return reply

    def open(self, url: str, settle: float = 0.5, timeout: float = 60.0) -> dict:
        """Load `url`, wait for its load event and `settle` s more (scripts that run after
        it), and return the title, the text length, the first heading and the problems:
        console errors, uncaught exceptions, failed requests, errors the browser logged."""
        self._events.clear()
        self.call("Page.navigate", session=self.session, url=url)
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            self._events.append(self._get(deadline, f"the load of {url}"))
        end = time.monotonic() + settle
        while time.monotonic() < end:
            try:
                self._events.append(self._messages.get(timeout=max(0.0,
                                                                   end - time.monotonic())))
            except queue.Empty:
                break
        page = self.call("Runtime.evaluate", session=self.session, returnByValue=True,
                         expression="({title: document.title, text: "
                                    "document.body ? document.body.innerText.length : 0, "
                                    "heading: (document.querySelector('h1') || {}).textContent"
                                    " || '', images: Array.from(document.images).filter("
                                    "i => !(i.complete && i.naturalWidth > 0)).map(i => "
                                    "i.src.slice(0, 80))})")["result"]["value"]
        page["problems"] = [p for e in self._events if (p := _problem(e))]
        return page

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        """A PNG of the window, or of the whole page (`full_page`, at most 6000 px tall)."""
        params: dict = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics", session=self.session)["cssContentSize"]
            params.update(captureBeyondViewport=True, clip={
                "x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 6000),
                "scale": 1})
        data = self.call("Page.captureScreenshot", session=self.session, **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._to_chrome)


def _problem(event: dict) -> str | None:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        return "Uncaught " + (details.get("exception", {}).get("description")
                              or details.get("text", "exception"))
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        return "console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                            for a in params.get("args", []))
    if method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        entry = params["entry"]
        return f"{entry.get('text')} ({entry.get('url', '')})"
    if method == "Network.loadingFailed" and not params.get("canceled"):
        return f"request failed: {params.get('errorText')} ({params.get('type')})"
    return None


# --- what is opened ------------------------------------------------------------------------------
def _site(tmp_dir: Path) -> Path:
    given = os.environ.get("STICKSLIP_SITE")
    if given:
        return Path(given)
    built = ROOT / "build" / "site"
    if (built / "index.html").exists():
        return built
    figures = Path(os.environ.get("STICKSLIP_DOCS_FIGURES", ROOT / "build" / "figures"))
    if not figures.is_dir():
        pytest.skip(f"no built site and no figures in {figures}: run `stickslip figures --out "
                    "build/figures && mkdocs build --strict` first")
    site = tmp_dir / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", STICKSLIP_DOCS_FIGURES=str(figures))
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                   cwd=ROOT, env=env, check=True)
    return site


def _declared_title(page: Path) -> str:
    match = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.DOTALL)
    assert match, f"{page} declares no <title>"
    return html.unescape(match.group(1).strip())


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chrome = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield chrome
    chrome.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return _site(tmp_path_factory.mktemp("docs"))


@pytest.fixture(scope="module")
def animations(tmp_path_factory):
    out = tmp_path_factory.mktemp("animations")
    scripts = sorted(p for p in (ROOT / "examples" / "spatial").glob("[!_]*.py")
                     if "--html" in p.read_text(encoding="utf-8"))
    assert scripts, "no example writes an HTML animation"
    chosen = [n.strip() for n in os.environ.get("STICKSLIP_ANIMATIONS", "").split(",")
              if n.strip()]
    if chosen:
        unknown = set(chosen) - {p.stem for p in scripts}
        assert not unknown, f"STICKSLIP_ANIMATIONS names no script: {sorted(unknown)}"
        scripts = [p for p in scripts if p.stem in chosen]
    for script in scripts:
        subprocess.run([sys.executable, script.name, "--html", str(out / f"{script.stem}.html")],
                       cwd=script.parent, check=True, stdout=subprocess.DEVNULL)
    return out


def _screenshot_dir() -> Path | None:
    where = os.environ.get("STICKSLIP_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
    return Path(where) if where else None


def _check(browser, server, directory: Path, page: Path) -> dict:
    relative = page.relative_to(directory).as_posix()
    shown = browser.open(f"{server.url}/{relative}")
    expected = _declared_title(page)
    assert shown["title"] == expected and "stickslip" in expected, (relative, shown["title"])
    assert shown["heading"].strip() and shown["text"] > 20, f"{relative} shows nothing"
    assert not shown["images"], f"{relative}: images that did not load: {shown['images']}"
    assert not shown["problems"], f"{relative}: {shown['problems']}"
    return shown


def test_every_site_page_renders_without_errors(browser, site):
    pages = sorted(site.rglob("index.html"))
    assert len(pages) > 10, f"{site} has only {len(pages)} pages"
    server = _Server(site)
    try:
        for page in pages:
            _check(browser, server, site, page)
            if page.parent.name in ("gallery", "quickstart") and (shots := _screenshot_dir()):
                browser.screenshot(shots / f"{page.parent.name}.png",
                                   full_page=page.parent.name == "quickstart")
        assert not server.failed, f"requests for local files that failed: {server.failed}"
    finally:
        server.close()


def test_html_animations_render_without_errors(browser, animations):
    server = _Server(animations)
    try:
        for k, page in enumerate(sorted(animations.glob("*.html"))):
            _check(browser, server, animations, page)
            assert "<script" not in page.read_text(encoding="utf-8"), \
                f"{page.name} runs scripts; the animations are a GIF inline"
            if k == 0 and (shots := _screenshot_dir()):
                browser.screenshot(shots / f"animation_{page.stem}.png")
        assert not server.failed, f"requests for local files that failed: {server.failed}"
    finally:
        server.close()


def test_a_broken_page_is_caught(browser, tmp_path):
    # the checks above must see what a person would: an uncaught error, a console error, a
    # missing local file
    (tmp_path / "broken.html").write_text(
        "<!doctype html><html><head><title>stickslip broken</title></head><body><h1>x</h1>"
        "<p>some text to read on this page</p><img src='missing.png'>"
        "<script>console.error('boom'); notDefined();</script></body></html>")
    server = _Server(tmp_path)
    try:
        shown = browser.open(f"{server.url}/broken.html")
    finally:
        server.close()
    problems = " | ".join(shown["problems"])
    assert "boom" in problems and "Uncaught ReferenceError" in problems, problems
    assert "404" in problems or "Failed to load resource" in problems, problems
    assert shown["images"] and "404 /missing.png" in server.failed
