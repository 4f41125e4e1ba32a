"""The 3D view a dashboard opens (mindpy.view, served by the bots' Node process on 127.0.0.1) answers only its own
page, as the dashboard does: a page of another site, or its name pointed at 127.0.0.1, cannot read the bot's world
and position from it."""

from __future__ import annotations

from dashboard_helpers import exchange, upgrade
from mindpy.view import open_viewer

HANDSHAKE = "/socket.io/?EIO=4&transport=polling"


def test_the_3d_view_answers_only_its_own_page(make_bot):
    bot = make_bot("viewsite")
    with open_viewer(bot, view_distance=1) as viewer:
        port = viewer.port
        own_origin = (("Origin", f"http://127.0.0.1:{port}"),)
        assert exchange(port, "GET", "/").status == 200
        assert exchange(port, "GET", "/", host=f"localhost:{port}").status == 200
        assert exchange(port, "GET", HANDSHAKE, headers=own_origin).body.startswith(b'0{"sid"')
        assert upgrade(port, "/socket.io/?EIO=4&transport=websocket").status == 101
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1"):
            refused = exchange(port, "GET", "/", host=host)
            assert refused.status == 403 and b"<script" not in refused.body, host
            assert exchange(port, "GET", HANDSHAKE, host=host).status in (400, 403), host
            assert upgrade(port, "/socket.io/?EIO=4&transport=websocket", host=host, origin=None).status != 101
        for origin in ("http://evil.example", "null", f"http://127.0.0.1:{port + 1}"):
            assert exchange(port, "GET", HANDSHAKE, headers=(("Origin", origin),)).status in (400, 403), origin
            foreign = upgrade(port, "/socket.io/?EIO=4&transport=websocket", origin=origin)
            assert foreign.status != 101 and foreign.frame is None, origin
