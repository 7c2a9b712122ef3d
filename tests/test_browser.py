"""Browser smoke test: a widget lesson really runs and renders in JupyterLab.

JupyterLab is started on a free localhost port (with a token, serving a temporary copy of
notebooks/ so the tracked lessons are never touched); headless Chromium -- Debian's
`chromium`, driven by Playwright through `executable_path`, no browser download -- opens
the lesson, runs every cell and we check that the ipywidgets sliders rendered and that no
cell shows an error. A screenshot is saved to a temporary folder and its path printed.

The test skips, with the reason, when Chromium or the `playwright` package is missing
(`.ci/run` installs Chromium with apt-get). Set MINITORCH_CHROMIUM to point at another
Chromium binary (a path that does not exist makes the test skip, which is how the skip is
checked).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
LESSON = "03_attributes.ipynb"  # its interact() has three IntSliders and a Dropdown

# Flags for a machine whose network may be closed: without the background-networking ones
# Chromium keeps trying (and failing) to reach Google's services.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SERVER_START_TIMEOUT = 40  # seconds for JupyterLab to answer
PAGE_TIMEOUT_MS = 30_000  # the lab UI and the notebook to appear
RUN_TIMEOUT_MS = 40_000  # every cell to run
SHUTDOWN_TIMEOUT = 10


def _chromium() -> str | None:
    """The Chromium binary to drive, or None when there is none."""
    override = os.environ.get("MINITORCH_CHROMIUM")
    if override:
        return override if os.path.isfile(override) and os.access(override, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return "(no server log)"


@pytest.fixture
def chromium_path() -> str:
    path = _chromium()
    if path is None:
        where = os.environ.get("MINITORCH_CHROMIUM") or "/usr/bin/chromium or `chromium` on PATH"
        pytest.skip(f"Chromium not found ({where}); install Debian's `chromium` to run the browser smoke test")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        pytest.skip(
            f"the `playwright` package is not importable ({exc}); "
            "`pip install playwright` (no browser download needed) to run the browser smoke test"
        )
    return path


@pytest.fixture
def jupyter_lab(tmp_path):
    """A JupyterLab server on localhost over a copy of notebooks/; yields (base_url, token, root)."""
    root = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    # Clear the stored outputs of the lesson we open, so everything on screen comes from this run.
    import nbformat

    lesson = root / LESSON
    nb = nbformat.read(lesson, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, lesson)

    # Private Jupyter config/runtime/settings/workspace folders: nothing from the user's
    # own setup leaks in, and nothing is written into it.
    config_dir = tmp_path / "jupyter-config"
    config_dir.mkdir()
    (config_dir / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "LabApp": {
                    "news_url": None,  # no announcements feed (the network may be closed)
                    "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate",
                    "expose_app_in_browser": True,  # window.jupyterapp, to run commands
                },
            }
        )
    )
    # Never ask about (or fetch) the Jupyter news feed: its toast would cover the page.
    notification = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))

    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(config_dir),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "lab-workspaces"),
        IPYTHONDIR=str(tmp_path / "ipython"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("JUPYTER_TOKEN", None)

    port = _free_port()
    token = os.urandom(16).hex()
    log_path = tmp_path / "jupyter-lab.log"
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{_tail(log_path)}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not answer within {SERVER_START_TIMEOUT}s:\n{_tail(log_path)}")
            time.sleep(0.25)
        yield base, token, log_path
    finally:
        # Ask the server to shut itself (and its kernels) down; then make sure it is gone.
        if proc.poll() is None:
            try:
                req = urllib.request.Request(f"{base}/api/shutdown?token={token}", method="POST")
                urllib.request.urlopen(req, timeout=5).close()
            except (urllib.error.URLError, OSError):
                pass
            try:
                proc.wait(timeout=SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=SHUTDOWN_TIMEOUT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=SHUTDOWN_TIMEOUT)


# Runs in the page: wait for the notebook's kernel, run every cell, wait for idle, and
# report what the cell outputs hold (errors included) from the notebook model itself.
_RUN_ALL_JS = """
async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  if (!panel || !panel.sessionContext) throw new Error('no notebook panel is open');
  await panel.context.ready;
  await panel.sessionContext.ready;
  const ok = await app.commands.execute('notebook:run-all-cells');
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  for (let i = 0; i < 200 && kernel && kernel.status !== 'idle'; i++) {
    await new Promise(r => setTimeout(r, 100));
  }
  const errors = [];
  let unrun = 0;
  const cells = panel.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    if (cell.executionCount === null) unrun++;
    const outputs = cell.outputs;
    for (let j = 0; j < outputs.length; j++) {
      const out = outputs.get(j).toJSON();
      if (out.output_type === 'error') errors.push(`cell ${i}: ${out.ename}: ${out.evalue}`);
    }
  }
  return {ok, status: kernel ? kernel.status : null, unrun, errors};
}
"""


@pytest.mark.browser
@pytest.mark.timeout(90)  # a hard cap; a normal run takes 10-20 s
def test_widget_lesson_renders_in_jupyterlab(chromium_path, jupyter_lab, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    base, token, log_path = jupyter_lab
    shots = tmp_path / "screenshots"
    shots.mkdir()
    started = time.monotonic()
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),  # a fresh profile every run
            executable_path=chromium_path,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page_errors: list[str] = []
            page.on("pageerror", lambda exc: page_errors.append(str(exc)))

            page.goto(f"{base}/lab/tree/{LESSON}?reset&token={token}", wait_until="domcontentloaded")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=PAGE_TIMEOUT_MS)
            page.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(state="visible")
            # The kernel name shows up in the toolbar once the session is set up.
            page.wait_for_function(
                """() => { const p = window.jupyterapp.shell.currentWidget;
                           return p && p.sessionContext && p.sessionContext.session
                                  && p.sessionContext.session.kernel; }""",
                timeout=PAGE_TIMEOUT_MS,
            )

            page.set_default_timeout(RUN_TIMEOUT_MS)
            result = page.evaluate(_RUN_ALL_JS)
            try:
                # The interact() sliders: the widget manager has rendered real views.
                sliders = page.locator(".jp-OutputArea-output .jupyter-widgets.widget-slider")
                sliders.first.scroll_into_view_if_needed()
                expect(sliders.first).to_be_visible(timeout=RUN_TIMEOUT_MS)
            finally:
                # Bring the widget cell to the middle of the notebook, then photograph the
                # page and the widget's output area on its own.
                page.evaluate(
                    """() => { const w = document.querySelector('.jp-OutputArea-output .widget-interact');
                               if (w) w.scrollIntoView({block: 'start'}); }"""
                )
                page.wait_for_timeout(500)
                shot = shots / f"{LESSON.removesuffix('.ipynb')}.png"
                page.screenshot(path=str(shot))
                print(f"\nbrowser smoke test screenshot: {shot}")
                interact = page.locator(".jp-OutputArea-output .widget-interact").first
                if interact.count():
                    interact.screenshot(path=str(shots / "widget.png"), timeout=5_000)

            assert result["ok"], f"Run All reported a failure: {result}"
            assert result["status"] == "idle", f"kernel not idle after Run All: {result}"
            assert result["unrun"] == 0, f"{result['unrun']} code cells did not run: {result}"
            assert not result["errors"], "cells raised:\n" + "\n".join(result["errors"])

            assert sliders.count() >= 3, f"expected the three IntSliders, found {sliders.count()}"
            assert page.locator(".jp-OutputArea-output .widget-dropdown").count() >= 1
            widget_text = page.locator(".jp-OutputArea-output .widget-interact").first.inner_text()
            assert "stride" in widget_text, f"the interact output did not render: {widget_text!r}"

            # The widgets are live: moving the first slider re-runs the function in the kernel.
            sliders.first.locator(".noUi-handle").first.focus()
            page.keyboard.press("ArrowRight")
            expect(page.locator(".jp-OutputArea-output .widget-interact").first).to_contain_text(
                "shape (3, 3, 4)", timeout=15_000
            )

            # Nothing on screen looks like an error: tracebacks, stderr with errors, or a
            # widget that failed to display.
            rendered_errors = page.locator(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"],'
                ' .jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]'
            )
            assert rendered_errors.count() == 0, rendered_errors.all_inner_texts()
            stderr_texts = page.locator(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
            ).all_inner_texts()
            bad_stderr = [t for t in stderr_texts if "Traceback" in t or "Error" in t]
            assert not bad_stderr, bad_stderr
            all_output = "\n".join(page.locator(".jp-OutputArea-output").all_inner_texts())
            assert "Error displaying widget" not in all_output
            assert not page_errors, f"uncaught errors in the page: {page_errors}"
        except Exception:
            print(f"\njupyter lab log (tail):\n{_tail(log_path)}")
            raise
        finally:
            context.close()
    print(f"browser part took {time.monotonic() - started:.1f}s")
