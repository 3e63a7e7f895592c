// Runs ui.js, i18n.js and words.js in Node with a fake document (run by web/tests/text_on_page.rs). Prints
// {"problems": [...]} and exits 1 if there is any:
// - a name or chat text put on the page by `h` is one text node holding exactly the server's string (markup, a
//   right-to-left name, an emoji family), never parsed as markup;
// - a `bad_name` / `bad_chat` refusal is worded, and the server's message (which character was refused) is shown.

import { pathToFileURL } from "node:url";
import path from "node:path";

const dir = process.argv[2];
const problems = [];
const expect = (ok, what) => {
  if (!ok) problems.push(what);
};

class FakeNode {}
class FakeText extends FakeNode {
  constructor(data) {
    super();
    this.data = data;
  }
}
class FakeElement extends FakeNode {
  constructor(tag) {
    super();
    this.tag = tag;
    this.children = [];
    this.attributes = {};
    this.dataset = {};
  }
  append(child) {
    this.children.push(child);
  }
  set textContent(value) {
    this.children = [new FakeText(String(value))];
  }
  set innerHTML(value) {
    problems.push(`innerHTML was set on <${this.tag}>: ${value}`);
  }
  setAttribute(name, value) {
    this.attributes[name] = value;
  }
  addEventListener() {}
}
globalThis.Node = FakeNode;
globalThis.window = { addEventListener() {} };
globalThis.document = {
  addEventListener() {},
  visibilityState: "visible",
  documentElement: {},
  createElement: (tag) => new FakeElement(tag),
  createElementNS: (_, tag) => new FakeElement(tag),
  createTextNode: (data) => new FakeText(data),
};

const { h } = await import(pathToFileURL(path.join(dir, "ui.js")).href);
const i18n = await import(pathToFileURL(path.join(dir, "i18n.js")).href);
const { errorWords } = await import(pathToFileURL(path.join(dir, "words.js")).href);
i18n.setLang("en");

const names = [
  '<img src=x onerror="window.__pwned=1">',
  "\u0645\u062d\u0645\u062f",
  "\u{1F468}\u200D\u{1F469}\u200D\u{1F467} Zo\u00eb",
  "Jos\u00e9 & <b>Ann</b>",
];
for (const name of names) {
  for (const el of [h("span", { class: "name" }, name), h("span", { text: name })]) {
    const only = el.children.length === 1 && el.children[0] instanceof FakeText ? el.children[0].data : null;
    expect(only === name, `${JSON.stringify(name)} is shown as one text node holding exactly it (${JSON.stringify(el.children)})`);
  }
}

for (const [code, message] of [
  ["bad_name", "a name cannot contain the bidirectional control U+202E"],
  ["bad_chat", "a chat message has at most 4 combining marks on one character"],
]) {
  const words = errorWords({ code, message });
  expect(words.includes(message), `${code} shows the server's reason: ${JSON.stringify(words)}`);
  expect(!words.startsWith(i18n.t("errors.other")), `${code} has words of its own: ${JSON.stringify(words)}`);
}

console.log(JSON.stringify({ problems }));
process.exit(problems.length ? 1 : 0);
