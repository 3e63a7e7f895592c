// Runs net.js and i18n.js in Node, with a fake WebSocket, a fake window and fake timers' readings (run by
// web/tests/net_moved.rs). Prints {"problems": [...]} and exits 1 if there is any:
// - a `moved` refusal (cluster mode) drops the connection and reconnects, waiting longer after each refusal in a
//   row (0.5 s, then 1 s), and `settled()` brings the next wait back to 0.5 s;
// - the viewer's word after the first name of a list is in small letters ("Bo y tú"), and stays as it is first.

import { pathToFileURL } from "node:url";
import path from "node:path";

const dir = process.argv[2];
const problems = [];
const expect = (ok, what) => {
  if (!ok) problems.push(what);
};

globalThis.window = { addEventListener() {} };
globalThis.document = { addEventListener() {}, visibilityState: "visible", documentElement: {} };
globalThis.location = { protocol: "http:", host: "test" };

class FakeSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.listeners = {};
    this.sent = [];
    FakeSocket.all.push(this);
  }
  addEventListener(type, listener) {
    (this.listeners[type] ||= []).push(listener);
  }
  emit(type, event = {}) {
    for (const listener of this.listeners[type] || []) listener(event);
  }
  send(data) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    queueMicrotask(() => this.emit("close"));
  }
}
FakeSocket.all = [];
FakeSocket.OPEN = 1;
globalThis.WebSocket = FakeSocket;

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const { Connection } = await import(pathToFileURL(path.join(dir, "net.js")).href);

const statuses = [];
let readies = 0;
const conn = new Connection({
  onReady: () => (readies += 1),
  onStatus: (status, detail) => statuses.push({ status, detail, at: Date.now() }),
});

/** Opens the newest socket and answers its `hello`. */
async function welcome() {
  const socket = FakeSocket.all[FakeSocket.all.length - 1];
  socket.readyState = 1;
  socket.emit("open");
  const hello = socket.sent.find((m) => m.type === "hello");
  socket.emit("message", { data: JSON.stringify({ type: "welcome", re: hello.id, server_time: Date.now() }) });
  await settle();
  return socket;
}

/** The wait before the next attempt, as the last "lost" status announced it. */
function lastWait() {
  const lost = statuses.filter((s) => s.status === "lost").pop();
  return lost ? lost.detail.retryAt - lost.at : NaN;
}

conn.connect();
await welcome();
expect(conn.ready && readies === 1, "the first connection is ready");

conn.reconnectElsewhere();
await settle();
const first = lastWait();
expect(!conn.ready && first >= 400 && first <= 600, `the first moved refusal waits about 0.5 s (${first} ms)`);

conn.reconnectNow();
expect(FakeSocket.all.length === 2, "reconnecting opens a new socket");
await welcome();
expect(readies === 2, "the new connection is ready");
conn.reconnectElsewhere();
await settle();
const second = lastWait();
expect(second >= 800 && second <= 1200, `a second moved refusal in a row waits about 1 s (${second} ms)`);

conn.reconnectNow();
const third = await welcome();
conn.settled();
third.close();
await settle();
const after = lastWait();
expect(after >= 400 && after <= 600, `once settled, a dropped connection waits about 0.5 s again (${after} ms)`);
conn.stop();

const i18n = await import(pathToFileURL(path.join(dir, "i18n.js")).href);
i18n.setLang("es");
expect(i18n.listOf(["Bo", "Tú"]) === "Bo y tú", `"Bo y tú" (${i18n.listOf(["Bo", "Tú"])})`);
expect(i18n.listOf(["Tú", "Bo"]) === "Tú y Bo", `"Tú y Bo" (${i18n.listOf(["Tú", "Bo"])})`);
i18n.setLang("en");
expect(i18n.listOf(["Ann", "Bo", "You"]) === "Ann, Bo and you", `"Ann, Bo and you" (${i18n.listOf(["Ann", "Bo", "You"])})`);

console.log(JSON.stringify({ problems }));
process.exit(problems.length ? 1 : 0);
