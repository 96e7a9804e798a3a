"""Screenshot of a built site's page in headless Chromium (the README's docs/screenshot.png).

In: a built site (``papersite build`` writes ``site/``). Out: a PNG of one page,
served from that directory on 127.0.0.1 so the page looks exactly as it will
when published; every request that would leave that server is refused.

    python bench/screenshot.py                                  # home page -> docs/screenshot.png
    python bench/screenshot.py --path stats/ --width 390 --out /tmp/stats.png --full-page

Run it after a build so the README shows what the site is today, not what it was.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import socketserver
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def screenshot(site: Path, path: str, out: Path, width: int, height: int, full_page: bool) -> None:
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_QuietHandler, directory=str(site))
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            phone = width < 600
            context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                                          has_touch=phone, device_scale_factor=2 if phone else 1)
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
            page = context.new_page()
            page.goto(base + path.lstrip("/"), wait_until="networkidle")
            page.evaluate("document.fonts.ready")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out), full_page=full_page)
            browser.close()
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=REPO / "site", help="built site directory (default: site/)")
    parser.add_argument("--path", default="", help="page path inside the site, e.g. stats/ (default: home page)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshot.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--full-page", action="store_true", help="the whole page, not just the first screen")
    args = parser.parse_args()
    if not (args.site / "index.html").exists():
        parser.error(f"{args.site}: no built site there (run `papersite build` first)")
    screenshot(args.site.resolve(), args.path, args.out, args.width, args.height, args.full_page)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
