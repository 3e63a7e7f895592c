#!/usr/bin/env python3
"""Probes of issue 42 points 2 and 8 against a server binary (docs/reliability.md, "Strangers on the open internet").
Usage: python3 probe.py target/release/server [timeout silent wscap metrics ipv6]"""
import os, resource, socket, subprocess, sys, time, json, tempfile

BIN = sys.argv[1]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

def start(env_extra, soft_nofile=1024):
    d = tempfile.mkdtemp()
    env = dict(os.environ, BIND="127.0.0.1:0", DATABASE_URL=f"sqlite://{d}/t.db", RUST_LOG="info")
    env.update(env_extra)
    log = open(f"{d}/log", "w+")
    p = subprocess.Popen(["sh", "-c", f'ulimit -Sn {soft_nofile} && exec "$0"', BIN], env=env,
                         stdout=subprocess.PIPE, stderr=log, text=True)
    line = p.stdout.readline()
    host, port = line.strip().removeprefix("listening on http://").rsplit(":", 1)
    return p, (host, int(port)), f"{d}/log"

def rss_kb(p):
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS"):
            return int(l.split()[1])

def fds(p):
    return len(os.listdir(f"/proc/{p.pid}/fd"))

def get(addr, path, timeout=30, extra=""):
    t = time.monotonic()
    s = socket.create_connection(addr, timeout=timeout)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{extra}\r\n".encode())
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except socket.timeout:
        return None, time.monotonic() - t, data
    s.close()
    return int(data[9:12]) if data else None, time.monotonic() - t, data

def until_closed(s, limit):
    t = time.monotonic()
    s.settimeout(limit)
    try:
        while True:
            b = s.recv(1024)
            if not b:
                return time.monotonic() - t
    except ConnectionResetError:
        return time.monotonic() - t
    except socket.timeout:
        return None

def stop(p):
    p.terminate()
    p.wait(30)

which = sys.argv[2:] or ["timeout", "silent", "wscap", "metrics", "ipv6"]
out = {}
if "timeout" in which:
    p, addr, _ = start({})
    s = socket.create_connection(addr)
    out["silent socket closed after s"] = until_closed(s, 60)
    s = socket.create_connection(addr)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    t = time.monotonic(); s.settimeout(1)
    closed = None
    while time.monotonic() - t < 60:
        try:
            s.sendall(b"x")
            b = s.recv(1024)
            if not b:
                closed = time.monotonic() - t; break
        except socket.timeout:
            continue
        except (BrokenPipeError, ConnectionResetError):
            closed = time.monotonic() - t; break
    out["1 byte/s header trickle closed after s"] = closed
    s = socket.create_connection(addr)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    s.recv(1024)
    out["idle kept-alive connection closed after s"] = until_closed(s, 60)
    stop(p)

if "silent" in which:
    for n in [1100, 5000]:
        p, addr, log = start({})
        base_rss, base_fd = rss_kb(p), fds(p)
        socks = []
        t = time.monotonic()
        for _ in range(n):
            socks.append(socket.create_connection(addr, timeout=5))
        opened = time.monotonic() - t
        code, took, _ = get(addr, "/healthz", timeout=10)
        rcode, rtook, _ = get(addr, "/readyz", timeout=10)
        out[f"{n} silent sockets (opened in {opened:.1f} s): /healthz"] = (code, round(took * 1000, 1), "ms")
        out[f"{n} silent sockets: /readyz"] = (rcode, round(rtook * 1000, 1), "ms")
        out[f"{n} silent sockets: server fds before/after, RSS KB before/after"] = (base_fd, fds(p), base_rss, rss_kb(p))
        limit_line = [l for l in open(log) if "open-file limit" in l]
        out["log"] = limit_line[0].strip()[-80:] if limit_line else None
        for s in socks: s.close()
        stop(p)

def ws_open(addr, extra=""):
    s = socket.create_connection(addr, timeout=10)
    s.sendall(("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + extra + "\r\n").encode())
    t = time.monotonic()
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(4096)
        if not b: break
        data += b
    return s, int(data[9:12]), time.monotonic() - t, data

if "wscap" in which:
    p, addr, _ = start({"MAX_CONNECTIONS": "1024", "MAX_CONNECTIONS_PER_IP": "100000", "HANDSHAKE_TIMEOUT_SECS": "600",
                        "IDLE_TIMEOUT_SECS": "600"})
    held = []
    for _ in range(1024):
        s, code, _, _ = ws_open(addr)
        assert code == 101, code
        held.append(s)
    times = []
    for _ in range(20):
        s, code, took, data = ws_open(addr)
        times.append(took); s.close()
    out["1025th WebSocket (20 tries): status, median ms"] = (code, round(sorted(times)[10] * 1000, 2), data.split(b"\r\n\r\n", 1)[1][:120].decode(errors="replace"))
    code, took, _ = get(addr, "/healthz", timeout=10)
    out["at the WebSocket cap: /healthz"] = (code, round(took * 1000, 1), "ms")
    code, took, _ = get(addr, "/readyz", timeout=10)
    out["at the WebSocket cap: /readyz"] = (code, round(took * 1000, 1), "ms")
    for s in held: s.close()
    stop(p)

if "metrics" in which:
    p, addr, log = start({"BIND": "0.0.0.0:0"})
    get(addr, "/healthz")
    out["BIND=0.0.0.0 warning"] = [l.strip()[-120:] for l in open(log) if "WARN" in l]
    stop(p)

if "ipv6" in which:
    p, addr, _ = start({"TRUSTED_PROXIES": "127.0.0.1", "HANDSHAKE_TIMEOUT_SECS": "600"})
    held = []
    admitted = 0
    for i in range(100):
        s, code, _, _ = ws_open(addr, f"X-Forwarded-For: 2001:db8:0:1::{i+1:x}\r\n")
        if code == 101: admitted += 1; held.append(s)
        else: s.close()
    out["100 addresses of one IPv6 /64: WebSockets admitted"] = admitted
    for s in held: s.close()
    stop(p)

for k, v in out.items():
    print(f"{k}: {v}")
