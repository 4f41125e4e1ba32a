"""The message bus of a run whose agents live in several processes (`mindpy run --processes N`).

The main process holds a `Hub`: its `bus` is the bus of the main process's agents, and it listens on a local
socket (127.0.0.1, a random key) for the worker processes. Each worker connects with a `HubClient`, whose `bus` is
the bus of the worker's agents. Both buses have InProcessBus's interface and behaviour:

- `register`, `unregister`, `is_present`, `names` answer at once, from the run-wide list of names; every process
  keeps a copy of it, which the hub updates (a worker's agents are known to the others a socket round trip after
  they registered, and are dropped when the worker's connection ends);
- `send` returns whether the recipient is registered and never waits for it; each message is handed to its
  recipient's handler on a thread of its own, in the order sent (a message between two processes goes through
  the hub, in order: one connection per worker, read by one thread);
- a message to an agent of the same process does not leave the process.

The connection also carries the rest of a worker's traffic (its config, console lines, status, stop): a worker
sends `(kind, ...)` tuples with `HubClient.post`, which reach the hub's `on_message(worker_id, message)`.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from .bus import Handler, InProcessBus

log = logging.getLogger(__name__)

HUB = "hub"  # the owner of the main process's names


class _Link:
    """One end of a connection: sends from any thread (one at a time), gives up quietly once it has ended."""

    def __init__(self, conn: Connection, number: int = 0):
        self.conn = conn
        self.number = number  # the worker's number (a worker started again gets a new link, same number)
        self._lock = threading.Lock()
        self.closed = False

    def send(self, message: tuple) -> bool:
        with self._lock:
            if self.closed:
                return False
            try:
                self.conn.send(message)
                return True
            except (OSError, EOFError, ValueError):
                self.closed = True
                return False

    def close(self) -> None:
        """End the connection both ways: a thread blocked reading it wakes up, and the other end sees it end
        (closing the descriptor alone does neither while a read is under way)."""
        with self._lock:
            self.closed = True
        try:
            with socket.socket(fileno=os.dup(self.conn.fileno())) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.conn.close()
        except OSError:
            pass


class HubBus(InProcessBus):
    """The bus of the main process's agents; it also routes the workers' messages (see Hub)."""

    def __init__(self, hub: Hub):
        super().__init__()
        self._hub = hub

    def register(self, name: str, handler: Handler) -> None:
        with self._lock:
            self._handlers[name] = handler
        self._hub.claim(name, HUB)

    def unregister(self, name: str) -> None:
        with self._lock:
            self._handlers.pop(name, None)
        self._hub.release(name, HUB)

    def is_present(self, name: str) -> bool:
        return self._hub.owner(name) is not None

    def names(self) -> list[str]:
        return self._hub.names()

    def send(self, sender: str, recipient: str, payload: dict) -> bool:
        return self._hub.route(sender, recipient, payload)


class Hub:
    """The main process's end: owns the run-wide names, relays messages between processes, takes workers'
    connections. `on_message(worker_id, message)` receives what workers `post`; `on_disconnect(worker_id)` runs when
    a worker's connection ends (its names are dropped first)."""

    def __init__(self, on_message: Callable[[int, tuple], None] | None = None,
                 on_disconnect: Callable[[int], None] | None = None):
        self.key = secrets.token_bytes(32)
        self._listener = Listener(("127.0.0.1", 0), authkey=self.key)
        self.address: tuple[str, int] = self._listener.address
        self.on_message = on_message or (lambda worker, message: None)
        self.on_disconnect = on_disconnect or (lambda worker: None)
        self._owners: dict[str, Any] = {}  # name -> HUB or the _Link of the worker that holds it
        self._links: dict[int, _Link] = {}  # worker number -> its connection
        self._lock = threading.RLock()  # also orders the name updates sent to workers
        self._closed = False
        self.bus = HubBus(self)
        threading.Thread(target=self._accept, name="hub-accept", daemon=True).start()

    # ---- names ---------------------------------------------------------------------------------------
    def owner(self, name: str) -> Any:
        with self._lock:
            return self._owners.get(name)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._owners)

    def claim(self, name: str, owner: Any) -> None:
        with self._lock:
            self._owners[name] = owner
            self._broadcast(("register", name), besides=owner)

    def release(self, name: str, owner: Any) -> None:
        """Drop `name` if `owner` still holds it (a name taken over meanwhile stays)."""
        with self._lock:
            if self._owners.get(name) is not owner:
                return
            del self._owners[name]
            self._broadcast(("unregister", name), besides=owner)

    def _broadcast(self, message: tuple, besides: Any = None) -> None:
        for link in list(self._links.values()):
            if link is not besides:
                link.send(message)

    # ---- messages ------------------------------------------------------------------------------------
    def route(self, sender: str, recipient: str, payload: dict) -> bool:
        """Deliver a message to whichever process holds `recipient`; False if nobody does."""
        with self._lock:
            owner = self._owners.get(recipient)
        if owner == HUB:
            return self.bus.deliver(sender, recipient, payload)
        if not isinstance(owner, _Link):
            return False
        return owner.send(("deliver", sender, recipient, payload))

    def post(self, worker: int, message: tuple) -> bool:
        """Send a worker one of the run's own messages (its config, stop)."""
        with self._lock:
            link = self._links.get(worker)
        return link is not None and link.send(message)

    def workers(self) -> list[int]:
        with self._lock:
            return sorted(self._links)

    # ---- connections ---------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed:
            try:
                conn = self._listener.accept()
            except Exception:  # closed, or a client without the key (refused by the handshake)
                if self._closed:
                    return
                log.warning("a process failed to connect to the run's hub", exc_info=True)
                continue
            try:
                hello = conn.recv()
                worker = int(hello[1]) if hello[0] == "hello" else None
            except Exception:
                worker = None
            if worker is None:
                conn.close()
                continue
            link = _Link(conn, worker)
            with self._lock:
                self._links[worker] = link
                link.send(("names", sorted(self._owners)))
            threading.Thread(target=self._read, args=(worker, link), name=f"hub-worker-{worker}",
                             daemon=True).start()

    def _read(self, worker: int, link: _Link) -> None:
        try:
            while True:
                try:
                    message = link.conn.recv()
                except (EOFError, OSError):
                    break
                kind = message[0]
                if kind == "register":
                    self.claim(message[1], link)
                elif kind == "unregister":
                    self.release(message[1], link)
                elif kind == "send":
                    _, sender, recipient, payload = message
                    if not self.route(sender, recipient, payload):
                        log.debug("message from %s to %s dropped: %s has left", sender, recipient, recipient)
                else:
                    try:
                        self.on_message(worker, message)
                    except Exception:
                        log.exception("handling %s from worker %s failed", kind, worker)
        finally:
            with self._lock:
                if self._links.get(worker) is link:
                    del self._links[worker]
                for name in [n for n, owner in self._owners.items() if owner is link]:
                    self.release(name, link)
            link.close()
            if not self._closed:
                self.on_disconnect(worker)

    def close(self) -> None:
        self._closed = True
        try:
            self._listener.close()
        except OSError:
            pass
        with self._lock:
            links = list(self._links.values())
        for link in links:
            link.close()


class ClientBus(InProcessBus):
    """The bus of a worker's agents (see HubClient)."""

    def __init__(self, client: HubClient):
        super().__init__()
        self._client = client
        self._names: set[str] = set()  # the run-wide names, as the hub last told them

    def register(self, name: str, handler: Handler) -> None:
        with self._lock:
            self._handlers[name] = handler
            self._names.add(name)
        self._client.post(("register", name))

    def unregister(self, name: str) -> None:
        with self._lock:
            self._handlers.pop(name, None)
            self._names.discard(name)
        self._client.post(("unregister", name))

    def is_present(self, name: str) -> bool:
        with self._lock:
            return name in self._names

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._names)

    def send(self, sender: str, recipient: str, payload: dict) -> bool:
        with self._lock:
            present = recipient in self._names
        if not present:
            return False
        if self.deliver(sender, recipient, payload):  # an agent of this process
            return True
        return self._client.post(("send", sender, recipient, dict(payload)))

    def _update(self, message: tuple) -> None:
        kind = message[0]
        with self._lock:
            if kind == "names":
                self._names = set(message[1]) | set(self._handlers)
            elif kind == "register":
                self._names.add(message[1])
            elif kind == "unregister" and message[1] not in self._handlers:
                self._names.discard(message[1])


class HubClient:
    """A worker's end: connects to the hub, keeps its bus's names up to date, hands messages to its agents.
    `on_message(message)` gets everything else the hub sends; `on_end()` runs once the connection has ended."""

    def __init__(self, address: tuple[str, int], key: bytes, worker: int,
                 on_message: Callable[[tuple], None] | None = None, on_end: Callable[[], None] | None = None):
        self.worker = worker
        self._link = _Link(Client(address, authkey=key))
        self._link.send(("hello", worker))
        self.on_message = on_message or (lambda message: None)
        self.on_end = on_end or (lambda: None)
        self.bus = ClientBus(self)
        self._reader = threading.Thread(target=self._read, name="hub-client", daemon=True)
        self._reader.start()

    def post(self, message: tuple) -> bool:
        return self._link.send(message)

    def _read(self) -> None:
        try:
            while True:
                try:
                    message = self._link.conn.recv()
                except (EOFError, OSError):
                    break
                kind = message[0]
                if kind in ("names", "register", "unregister"):
                    self.bus._update(message)
                elif kind == "deliver":
                    _, sender, recipient, payload = message
                    self.bus.deliver(sender, recipient, payload)
                else:
                    try:
                        self.on_message(message)
                    except Exception:
                        log.exception("handling %s from the hub failed", kind)
        finally:
            self._link.close()
            self.on_end()

    def close(self) -> None:
        self._link.close()
