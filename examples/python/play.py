#!/usr/bin/env python3
"""An example client of the tabletop server, written only against docs/protocol.md.

It creates a lobby (or joins one by its code), fills the seats with more example players on their own
connections and with server bots, starts the match, plays by choosing among the legal actions the server
lists, reconnects with its seat token whenever its connection drops, and prints the result.

    python3 play.py --server http://127.0.0.1:8080 --game quacks --humans 2 --bots 1
    python3 play.py --server http://127.0.0.1:8080 --join RKPY-M3HQ-7WXN-4CTD  # join someone else's lobby

`--drop-every N` cuts a player's connection (without a closing handshake, like a network failure) after
every N of its actions, to show reconnection. `--transcript FILE` writes every frame the first player sends
(">") and receives ("<") as one JSON line each. Exit status 0 once every player has seen the result.

Requires Python 3.9+ and `websockets` (>= 13): `pip install -r requirements.txt`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import urllib.request
from collections import deque
from typing import Any, Optional

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

PROTOCOL = 2  # the protocol version this client speaks (docs/protocol.md, "Versioning")
CLIENT = "python-example 1.0"

# Refusals of an action that only mean "the state moved on": a newer `state` push is on its way.
MOVED_ON = {"stale_version", "not_your_turn", "illegal_action", "game_over"}


class Reconnect(Exception):
    """The connection ended in a way that a new connection plus `resume` can fix."""


class Fatal(Exception):
    """Something no reconnection fixes (a refused handshake, a lobby that is gone, the seat taken over)."""


class Connection:
    """One WebSocket: requests with ids and their one reply each, and the pushes in between."""

    def __init__(self, ws: ClientConnection, transcript: Optional[Any], keepalive: float) -> None:
        self.ws = ws
        self.next_id = 1
        self.pushes: deque[dict] = deque()
        self.replies: deque[dict] = deque()
        self.transcript = transcript
        # The server closes a connection that has sent nothing for IDLE_TIMEOUT_SECS (300 by default), however
        # much it receives: after `keepalive` seconds without sending, `receive` sends a `ping`.
        self.keepalive = keepalive
        self.last_sent = time.monotonic()

    async def send(self, body: dict) -> int:
        request_id = self.next_id
        self.next_id += 1
        message = {"id": request_id, **body}
        self.log(">", message)
        try:
            await self.ws.send(json.dumps(message))
        except ConnectionClosed as e:
            raise Reconnect(f"connection closed: {e}") from e
        self.last_sent = time.monotonic()
        return request_id

    async def receive(self) -> dict:
        """The next message from the server, sending a `ping` whenever this side has been quiet for `keepalive`
        seconds; the `pong`s are not returned."""
        while True:
            quiet_for = self.last_sent + self.keepalive - time.monotonic()
            if quiet_for <= 0:
                await self.send({"type": "ping"})
                continue
            try:
                # Cancelling `recv` on the timeout loses nothing (websockets >= 13).
                text = await asyncio.wait_for(self.ws.recv(), quiet_for)
            except asyncio.TimeoutError:
                continue
            except ConnectionClosed as e:
                raise Reconnect(f"connection closed: {e}") from e
            message = json.loads(text)
            self.log("<", message)
            if message.get("type") == "pong":
                continue
            return message

    async def request(self, body: dict) -> dict:
        """Sends a request and waits for its reply; pushes read meanwhile are kept for `next`."""
        request_id = await self.send(body)
        while True:
            message = await self.receive()
            if "re" not in message:
                self.pushes.append(message)
            elif message["re"] == request_id:
                return message
            else:
                self.replies.append(message)

    async def next(self) -> dict:
        """The next reply or push, in the order the server sent them."""
        if self.replies:
            return self.replies.popleft()
        if self.pushes:
            return self.pushes.popleft()
        return await self.receive()

    def drop(self) -> None:
        """Cuts the TCP connection without a WebSocket closing handshake, like a failing network."""
        self.ws.transport.abort()

    def log(self, direction: str, message: dict) -> None:
        if self.transcript is not None:
            self.transcript.write(f"{direction} {json.dumps(message)}\n")
            self.transcript.flush()


def expect(reply: dict, kind: str) -> dict:
    if reply["type"] == "error":
        raise Fatal(f"{reply['code']}: {reply['message']}")
    if reply["type"] != kind:
        raise Fatal(f"expected {kind}, got {reply}")
    return reply


class Player:
    def __init__(self, args: argparse.Namespace, index: int, code: asyncio.Future, transcript) -> None:
        self.args = args
        self.index = index
        self.name = "Host" if index == 0 and not args.join else f"Py{index + 1}"
        self.code = code  # the lobby's join code, set by the host (or given with --join)
        self.transcript = transcript
        self.rng = random.Random(args.seed * 1000 + index)
        self.seat: Optional[int] = None
        self.token: Optional[str] = None
        self.version: Optional[int] = None  # the last state version seen, for `resume`
        self.lobby: Optional[dict] = None
        self.actions = 0
        self.reconnections = 0
        self.events = 0

    async def run(self) -> dict:
        """Plays until the match is over; returns the final state. Reconnects on any drop."""
        delay = 0.05
        while True:
            try:
                async with connect(self.args.url, max_size=2**22) as ws:
                    conn = Connection(ws, self.transcript, self.args.keepalive)
                    welcome = await conn.request({"type": "hello", "protocol": PROTOCOL, "client": CLIENT})
                    expect(welcome, "welcome")
                    if self.token is None:
                        await self.sit(conn)
                    else:
                        resumed = await conn.request(
                            {"type": "resume", "code": await self.code, "token": self.token,
                             "last_version": self.version})
                        expect(resumed, "resumed")
                        self.say(f"resumed seat {resumed['seat']} at version {self.version}")
                        if self.is_host() and self.version is None:
                            # Dropped in the lobby, before the start: starting is still this player's job.
                            await self.start_when_full(conn)
                    return await self.play(conn)
            except (Reconnect, OSError, InvalidHandshake) as e:  # InvalidHandshake: e.g. HTTP 503 while shutting down
                self.reconnections += 1
                if self.reconnections > self.args.max_reconnections:
                    raise Fatal(f"gave up after {self.reconnections - 1} reconnections: {e}") from e
                self.say(f"connection lost ({e}); reconnecting")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def sit(self, conn: Connection) -> None:
        if self.index == 0 and not self.args.join:
            seated = expect(await conn.request(
                {"type": "create_lobby", "game": self.args.game, "options": self.args.options,
                 "seats": self.args.seats, "name": self.name}), "seated")
            self.code.set_result(seated["code"])
            print(f"lobby {seated['code']}: {self.args.game}, {self.args.seats} seats", flush=True)
        else:
            seated = expect(await conn.request(
                {"type": "join_lobby", "code": await self.code, "name": self.name}), "seated")
        self.seat, self.token = seated["seat"], seated["seat_token"]
        self.say(f"seated at {self.seat}")
        if self.is_host():
            for _ in range(self.args.bots):
                expect(await conn.request({"type": "add_bot"}), "ok")
            await self.start_when_full(conn)

    def is_host(self) -> bool:
        return self.index == 0 and not self.args.join

    async def start_when_full(self, conn: Connection) -> None:
        """Starts the match once every seat is taken (the other example players join on their own connections).
        A `state` push means it has started already (this host started it before a drop): it is kept for
        `play`."""
        while not self.lobby_full():
            message = await conn.next()
            if message["type"] == "lobby":
                self.lobby = message
            elif message["type"] == "state":
                conn.pushes.appendleft(message)
                return
        started = await conn.request({"type": "start"})
        if started["type"] == "error" and started["code"] == "already_started":
            return
        expect(started, "ok")

    def lobby_full(self) -> bool:
        return self.lobby is not None and all(s["occupant"]["kind"] != "empty" for s in self.lobby["seats"])

    async def play(self, conn: Connection) -> dict:
        acted_on = None  # the version this player last sent an action for
        last_sent: Optional[dict] = None  # that action, to send again if the rate limit dropped it
        while True:
            message = await conn.next()
            kind = message["type"]
            if kind == "lobby":
                self.lobby = message
            elif kind == "state":
                self.version = message["version"]
                self.events += len(message["events"])
                if message["status"]["kind"] == "over":
                    return message
                legal = message["legal_actions"]
                if legal and acted_on != message["version"]:
                    action = self.rng.choice(legal)
                    last_sent = {"type": "action", "action": action, "version": message["version"]}
                    await conn.send(last_sent)
                    acted_on = message["version"]
                    self.actions += 1
                    if self.args.drop_every and self.actions % self.args.drop_every == 0:
                        conn.drop()
            elif kind == "accepted":
                pass
            elif kind == "error" and message["code"] == "rate_limited" and last_sent is not None:
                # The server dropped our action: the rate limit allows 20 messages a second by default.
                await asyncio.sleep(0.5)
                await conn.send(last_sent)
            elif kind == "error":
                if message["code"] not in MOVED_ON:
                    raise Fatal(f"{message['code']}: {message['message']}")
                acted_on = None  # act again on the next state
            elif kind == "aborted":
                raise Fatal(f"an administrator aborted the match: {message['reason']}")
            elif kind == "closing":
                if message["code"] in ("shutting_down", "overloaded"):
                    raise Reconnect(message["code"])
                raise Fatal(f"closed by the server: {message['code']}: {message['message']}")

    def say(self, text: str) -> None:
        if self.args.verbose:
            print(f"[{self.name}] {text}", flush=True)


def games(server: str) -> dict[str, dict]:
    with urllib.request.urlopen(f"{server}/api/games", timeout=10) as response:
        return {g["id"]: g for g in json.load(response)}


async def main(args: argparse.Namespace) -> int:
    transcript = open(args.transcript, "w") if args.transcript else None
    code: asyncio.Future = asyncio.get_running_loop().create_future()
    if args.join:
        code.set_result(args.join)
        humans = 1
    else:
        humans = args.humans
    players = [Player(args, i, code, transcript if i == 0 else None) for i in range(humans)]
    started = time.monotonic()
    try:
        finals = await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), args.timeout)
    except (Fatal, asyncio.TimeoutError) as e:
        print(f"FAILED: {str(e) or 'no result within the time limit'}", file=sys.stderr)
        return 1
    final = finals[0]
    outcome = final["outcome"]
    names = {s["seat"]: s["occupant"].get("name", "?") for s in (players[0].lobby or {}).get("seats", [])}
    print(f"result of {final['game']} match {final['match_id']} after {final['version']} actions "
          f"({time.monotonic() - started:.1f} s):")
    for seat in sorted(range(len(outcome["scores"])), key=lambda s: outcome["placings"][s]):
        mine = [p.name for p in players if p.seat == seat]
        print(f"  {outcome['placings'][seat]}. seat {seat} {names.get(seat, '?')}: {outcome['scores'][seat]}"
              + ("  (this client)" if mine else ""))
    print(f"winners: seats {outcome['winners']}; "
          + "; ".join(f"{p.name}: {p.actions} actions, {p.events} events, {p.reconnections} reconnections"
                      for p in players))
    if transcript:
        transcript.close()
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8080", help="the server's HTTP address")
    parser.add_argument("--game", help="a game id from GET /api/games (default: the first)")
    parser.add_argument("--join", help="join this lobby code instead of creating a lobby")
    parser.add_argument("--humans", type=int, default=1, help="example players, each on its own connection")
    parser.add_argument("--bots", type=int, default=None, help="server bots (default: fill to the minimum)")
    parser.add_argument("--seats", type=int, default=None,
                        help="seats of the lobby (default: humans + bots); the host waits for others to --join")
    parser.add_argument("--options", type=json.loads, default={}, help="game options as a JSON object")
    parser.add_argument("--drop-every", type=int, default=0, help="cut the connection after every N actions")
    parser.add_argument("--max-reconnections", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1, help="seed of this client's choices")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to reach a result")
    parser.add_argument("--keepalive", type=float, default=60.0,
                        help="send a ping after this many seconds without sending (the server's IDLE_TIMEOUT_SECS "
                             "closes quiet connections)")
    parser.add_argument("--transcript", help="write the first player's frames to this file")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    args.server = args.server.rstrip("/")
    args.url = args.server.replace("http", "ws", 1) + "/ws"
    if not args.join:
        catalogue = games(args.server)
        args.game = args.game or next(iter(catalogue))
        if args.game not in catalogue:
            parser.error(f"unknown game {args.game}; the server hosts {', '.join(catalogue)}")
        info = catalogue[args.game]
        if args.bots is None:
            args.bots = max(0, info["min_players"] - args.humans)
        args.seats = args.seats or args.humans + args.bots
        if not info["min_players"] <= args.seats <= info["max_players"]:
            parser.error(f"{args.game} is for {info['min_players']}-{info['max_players']} players")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))
