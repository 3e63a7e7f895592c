// The client side of one takeover measurement of loadgen/cluster-bench.sh (run with
// `node --experimental-websocket`, Node 20+).
//
//   node --experimental-websocket loadgen/cluster-takeover.mjs ws://OWNER/ws ws://SURVIVOR/ws
//
// Opens a two-seat Hide and Eeek! match on OWNER with both seats connected there, plays it (each seat sends the
// first of its legal actions, one every 50 ms at most), and prints `{"ready": CODE}` once 5 actions were
// accepted. The script then waits for OWNER to be killed: each seat whose connection closes reconnects to
// SURVIVOR and resumes with its seat token (again and again while the answer is `moved` or `forward_unavailable`,
// that is until a survivor has taken the table over), and goes on playing. It prints
// `{"code": CODE, "accepted_again_ms": T}`, T the wall-clock time (ms since the epoch) of the first action
// accepted after the loss, and exits 0; exits 1 after 60 s without one.

const [owner, survivor] = process.argv.slice(2);
if (!owner || !survivor) {
  console.error("usage: cluster-takeover.mjs OWNER_WS_URL SURVIVOR_WS_URL");
  process.exit(2);
}
setTimeout(() => {
  console.error("cluster-takeover: no action accepted again within 60 s");
  process.exit(1);
}, 60_000);

let code = null;
let accepted = 0;
let broken = false;

/** One seat: a connection, its replies by request id, and the latest state. */
class Seat {
  constructor(name) {
    this.name = name;
    this.token = null;
    this.version = null;
    this.next = 1;
    this.waiting = new Map();
    this.acting = false;
    this.recovering = false;
  }

  connect(url) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        this.ws = ws;
        resolve();
      };
      ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
      ws.onmessage = (e) => this.frame(JSON.parse(e.data));
      ws.onclose = () => {
        for (const w of this.waiting.values()) w({ type: "error", code: "closed" });
        this.waiting.clear();
        if (this.ws === ws && code && !this.recovering) this.lost();
      };
    });
  }

  request(body) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ id, ...body }));
    });
  }

  frame(m) {
    if (m.re !== undefined && this.waiting.has(m.re)) {
      const w = this.waiting.get(m.re);
      this.waiting.delete(m.re);
      w(m);
    }
    if (m.type === "closing") {
      this.ws.close();
    } else if (m.type === "state") {
      this.version = m.version;
      this.state = m;
      this.play();
    }
  }

  /** Acts on the latest state if it asks this seat for something and no action of this seat is in flight. */
  play() {
    const legal = this.state?.legal_actions || [];
    if (legal.length && !this.acting && this.state.version !== this.actedAt) this.act(legal[0], this.state.version);
  }

  async act(action, version) {
    this.acting = true;
    this.actedAt = version;
    await new Promise((r) => setTimeout(r, 50));
    const r = this.ws ? await this.request({ type: "action", action, version }) : { type: "error" };
    this.acting = false;
    if (r.type !== "accepted") {
      // Refused (a race lost, the connection gone): the next state, or the one already here, says what next.
      this.actedAt = null;
      if (this.ws && this.state.version !== version) this.play();
      return;
    }
    this.play();
    accepted += 1;
    if (accepted === 5) console.log(JSON.stringify({ ready: code }));
    if (broken) {
      console.log(JSON.stringify({ code, accepted_again_ms: Date.now() }));
      process.exit(0);
    }
  }

  /** The connection closed: resume on the survivor until a node serves the table again. */
  async lost() {
    broken = true;
    this.recovering = true;
    this.ws = null;
    for (;;) {
      try {
        await this.connect(survivor);
        await this.request({ type: "hello", protocol: 1, client: "cluster-takeover" });
        const r = await this.request({ type: "resume", code, token: this.token, last_version: this.version });
        if (r.type === "resumed") {
          this.recovering = false;
          return;
        }
        if (!["moved", "forward_unavailable", "closed"].includes(r.code)) throw new Error(JSON.stringify(r));
        const ws = this.ws;
        this.ws = null;
        ws.close();
      } catch (e) {
        if (!String(e.message).startsWith("cannot connect")) {
          console.error(`cluster-takeover: ${e.message}`);
          process.exit(1);
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const host = new Seat("Ann");
const guest = new Seat("Bob");
for (const seat of [host, guest]) {
  await seat.connect(owner);
  await seat.request({ type: "hello", protocol: 1, client: "cluster-takeover" });
}
const created = await host.request({ type: "create_lobby", game: "hide_and_eeek", seats: 2, name: "Ann" });
if (created.type !== "seated") throw new Error(JSON.stringify(created));
host.token = created.seat_token;
const joined = await guest.request({ type: "join_lobby", code: created.code, name: "Bob" });
if (joined.type !== "seated") throw new Error(JSON.stringify(joined));
guest.token = joined.seat_token;
code = created.code;
const started = await host.request({ type: "start" });
if (started.type !== "ok") throw new Error(JSON.stringify(started));
