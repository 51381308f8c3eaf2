"""`trusted-memory-admin ui` as installed: loopback only, a one-time URL, a clean stop on Ctrl-C."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from trusted_memory.cli.admin import main

from ._support import running_ui

pytestmark = pytest.mark.e2e


def listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as /proc/net/tcp writes them) listening on `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def test_ui_listens_on_loopback_only_and_its_url_logs_in_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_ui(home) as (proc, url):
        port = int(url.split(":")[2].split("/")[0])
        assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as browser:
            first = browser.get(url)
            assert first.status_code == 303 and "HttpOnly" in first.headers["set-cookie"]
            assert browser.get("/").status_code == 200
        with httpx.Client() as other:
            assert other.get(url).status_code == 403  # spent
            assert other.get(f"http://127.0.0.1:{port}/").status_code == 401
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) in (0, 130)


def test_ui_explains_a_taken_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    with running_ui(home) as (_, url):
        port = url.split(":")[2].split("/")[0]
        code = main(["--home", str(tmp_path / "other"), "ui", "--no-browser", "--port", port])
        err = capsys.readouterr().err
    assert code == 1 and "cannot listen on 127.0.0.1" in err and "--port" in err


def test_a_browser_is_opened_only_where_there_is_a_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    # On a bare terminal `webbrowser` would run a text browser in the foreground, over the desk's output.
    from trusted_memory.cli import ui_command

    monkeypatch.setattr(ui_command.sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not ui_command.has_screen()
    monkeypatch.setenv("DISPLAY", ":0")
    assert ui_command.has_screen()
