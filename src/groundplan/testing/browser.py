"""The web console in a real browser, for tests and benchmarks: ``Console`` runs ``groundplan
serve``'s app under uvicorn in a thread on a free loopback port; ``wait_for`` and ``pick``
drive a Selenium page. Needs the ``web`` extra and selenium (imported where used)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
#: the goal the console's "bring me the apple" runs reach on the kitchen scene
APPLE_GOAL = "(:goal (and (inhand apple0 human0)))"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Console:
    """``groundplan serve``'s app under uvicorn in a thread, on a free loopback port."""

    def __init__(self, tmp: Path, **kw):
        import uvicorn  # the web extra

        from groundplan.web.app import create_app
        from groundplan.web.config import ServeConfig

        self.port = _free_port()
        kw.setdefault("console_results", tmp / "console.sqlite")
        self.cfg = ServeConfig(port=self.port, upload_dir=tmp / "uploads", **kw)
        self.server = uvicorn.Server(uvicorn.Config(create_app(self.cfg), host="127.0.0.1", port=self.port,
                                                    log_level="warning", access_log=False, ws="none"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "Console":
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            if time.time() > deadline:
                raise RuntimeError("console did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


def wait_for(d, predicate, timeout: float = 60.0, what: str = "condition"):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(d, timeout, poll_frequency=0.1).until(lambda _d: predicate(), message=f"waiting for {what}")


def pick(d, element_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(d.find_element("id", element_id)).select_by_value(value)


def headless_chrome(window: str = "1400,1000"):
    """Debian's chromium, headless, driven through Debian's chromedriver (never a download)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={window}",
              "--no-first-run", "--disable-extensions"):
        opts.add_argument(a)
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager download anything
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    d.set_page_load_timeout(60)
    return d


__all__ = ["headless_chrome", "CHROMIUM", "CHROMEDRIVER", "APPLE_GOAL", "Console", "wait_for", "pick"]
