// The WebSocket connection to the server: handshake, request ids, replies as promises, pushes, liveness checks and
// automatic reconnection. It knows nothing about lobbies or games; app.js re-attaches to a seat after each
// (re)connection through `onReady`.

export const PROTOCOL_VERSION = 2;

/** A refusal from the server (or a lost connection), with its stable code. */
export class ServerError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

const REPLY_TYPES = new Set(["welcome", "seated", "resumed", "spectating", "accepted", "ok", "pong", "error"]);
const PING_EVERY_MS = 15_000;
const PONG_WITHIN_MS = 10_000;

export class Connection {
  /**
   * @param {object} handlers
   *   onPush(message): a lobby, state or closing push;
   *   onReady(welcome): the handshake succeeded (first connection or a reconnection);
   *   onStatus(status, detail): "connecting" | "open" | "lost" | "stopped";
   *   onOrphanError(error): an error reply that answers no request of ours.
   */
  constructor(handlers, url = defaultUrl()) {
    this.url = url;
    this.handlers = handlers;
    this.nextId = 1;
    this.pending = new Map();
    this.socket = null;
    this.ready = false;
    this.stopped = false;
    this.attempt = 0;
    // Refusals in a row with `moved` (cluster mode: this node does not serve the table): each reconnection waits
    // longer, until `settled()`.
    this.refusals = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) return;
    this.status("connecting");
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (e) {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => this.handshake(socket));
    socket.addEventListener("message", (e) => this.receive(socket, e.data));
    socket.addEventListener("close", () => this.closed(socket));
    socket.addEventListener("error", () => {
      // "close" follows; nothing else to do here.
    });
  }

  /** Reconnects at once if the connection is down and waiting to retry. */
  reconnectNow() {
    if (this.stopped || this.ready) return;
    if (this.retryTimer) this.connect();
  }

  /**
   * The server cannot serve this table on this connection (`moved`, cluster mode): drop the connection and connect
   * again, through the balancer, after a delay that grows with each such refusal in a row.
   */
  reconnectElsewhere() {
    if (this.stopped) return;
    this.refusals += 1;
    if (this.socket) this.socket.close();
  }

  /** The seat or the watch was taken up again: the next reconnection starts with a short delay. */
  settled() {
    this.refusals = 0;
    this.attempt = 0;
  }

  /** Stops for good (another tab took the seat): no more reconnection until `connect()` is called again. */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.socket) this.socket.close();
    this.status("stopped");
  }

  async handshake(socket) {
    try {
      const welcome = await this.send({ type: "hello", protocol: PROTOCOL_VERSION, client: "tabletop-web/1" }, socket);
      if (socket !== this.socket) return;
      this.ready = true;
      this.attempt = this.refusals;
      this.status("open");
      this.startPinging(socket);
      this.handlers.onReady?.(welcome);
    } catch (e) {
      if (e.code === "unsupported_version") {
        this.stop();
        this.handlers.onOrphanError?.(e);
      }
    }
  }

  /** Sends a request once the handshake is done; resolves with the reply or rejects with a ServerError. */
  request(type, fields = {}) {
    if (!this.ready) return Promise.reject(new ServerError("connection_lost", "not connected"));
    return this.send({ type, ...fields }, this.socket);
  }

  send(body, socket) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, socket });
      try {
        socket.send(JSON.stringify({ id, ...body }));
      } catch (e) {
        this.pending.delete(id);
        reject(new ServerError("connection_lost", String(e)));
      }
    });
  }

  receive(socket, data) {
    if (socket !== this.socket) return;
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null) return;
    // Replies always carry `re` (null when the request could not be read); pushes never do.
    if ("re" in message || REPLY_TYPES.has(message.type)) this.reply(message);
    else this.handlers.onPush?.(message);
  }

  reply(message) {
    const waiting = message.re !== null && message.re !== undefined ? this.pending.get(message.re) : undefined;
    if (!waiting) {
      if (message.type === "error") this.handlers.onOrphanError?.(new ServerError(message.code, message.message));
      return;
    }
    this.pending.delete(message.re);
    if (message.type === "error") waiting.reject(new ServerError(message.code, message.message));
    else waiting.resolve(message);
  }

  startPinging(socket) {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (socket !== this.socket || socket.readyState !== WebSocket.OPEN) return;
      const timeout = setTimeout(() => {
        // No answer: the connection is dead even if the browser has not noticed. Start over.
        if (socket === this.socket) socket.close();
      }, PONG_WITHIN_MS);
      this.send({ type: "ping" }, socket).then(
        () => clearTimeout(timeout),
        () => clearTimeout(timeout),
      );
    }, PING_EVERY_MS);
  }

  closed(socket) {
    if (socket !== this.socket) return;
    this.ready = false;
    clearInterval(this.pingTimer);
    for (const [id, waiting] of this.pending) {
      if (waiting.socket === socket) {
        this.pending.delete(id);
        waiting.reject(new ServerError("connection_lost", "the connection closed"));
      }
    }
    this.socket = null;
    if (this.stopped) return;
    this.scheduleRetry();
  }

  scheduleRetry() {
    // 0.5 s, 1 s, 2 s, 4 s, then every 5 s, with a little jitter so a restarted server is not hit all at once.
    const base = Math.min(5000, 500 * 2 ** this.attempt);
    const delay = base * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.status("lost", { retryAt: Date.now() + delay });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  status(status, detail = {}) {
    this.state = status;
    this.handlers.onStatus?.(status, detail);
  }
}

function defaultUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
