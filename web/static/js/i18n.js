// The page's languages: one catalogue per language in `lang/<code>.js`, a flat map from a dotted key
// (`area.thing`) to a string with `{name}` placeholders, or to plural forms `{ one, few, many, other }` chosen by
// `Intl.PluralRules` on the `n` parameter. English is complete and is the fallback; a test fails when a key is
// missing in any language. The language comes from the switch (remembered in this browser), else from the
// browser's languages, else English.

import en from "./lang/en.js";
import ro from "./lang/ro.js";
import pl from "./lang/pl.js";
import es from "./lang/es.js";
import it from "./lang/it.js";

/** Every language of the page: [code, its own name]. */
export const LANGUAGES = [
  ["en", "English"],
  ["ro", "Română"],
  ["pl", "Polski"],
  ["es", "Español"],
  ["it", "Italiano"],
];

const CATALOGUES = { en, ro, pl, es, it };
const STORAGE_KEY = "tabletop.lang";
const listeners = new Set();

let current = chooseLanguage();
applyToDocument();

function chooseLanguage() {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && CATALOGUES[stored]) return stored;
  } catch {
    // No storage (private browsing): fall through to the browser's languages.
  }
  const wanted = (typeof navigator !== "undefined" && (navigator.languages || [navigator.language])) || [];
  for (const tag of wanted) {
    const code = String(tag || "").toLowerCase().split("-")[0];
    if (CATALOGUES[code]) return code;
  }
  return "en";
}

function applyToDocument() {
  if (typeof document !== "undefined") document.documentElement.lang = current;
}

/** The language the page speaks now. */
export function lang() {
  return current;
}

/** Switches the page's language, remembers it, and tells every listener (the app redraws). */
export function setLang(code) {
  if (!CATALOGUES[code] || code === current) return;
  current = code;
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // Not remembered, but the page still switches.
  }
  applyToDocument();
  for (const listener of listeners) listener(code);
}

/** Calls `listener(code)` after every language change. */
export function onLangChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether `key` is in the English catalogue (for screens that fall back to a generic label). */
export function hasKey(key) {
  return Object.prototype.hasOwnProperty.call(en, key);
}

/**
 * The text for `key` in the current language, with `{name}` replaced by `params.name`. Plural entries pick their
 * form from `params.n`. A key missing from the current language falls back to English; a key missing everywhere
 * is reported on the console and shown as the key itself, so a test can catch it.
 */
export function t(key, params = {}) {
  let entry = CATALOGUES[current][key];
  let language = current;
  if (entry === undefined) {
    entry = en[key];
    language = "en";
  }
  if (entry === undefined) {
    console.error(`i18n: no text for "${key}"`);
    return key;
  }
  if (typeof entry === "object") {
    const form = new Intl.PluralRules(language).select(Number(params.n ?? 0));
    entry = entry[form] ?? entry.other;
  }
  return entry.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * Like `t`, for a text with elements inside: returns the text cut at its placeholders, with `params[name]` (a DOM
 * node, or anything else turned into text) in place of each `{name}`, ready to be the children of an element.
 * "You are {seat}" with `{ seat: node }` gives `["You are ", node]`.
 */
export function tParts(key, params = {}) {
  const marker = "\u0000";
  const names = [];
  const plain = {};
  for (const name of Object.keys(params)) {
    if (params[name] !== null && typeof params[name] === "object") {
      names.push(name);
      plain[name] = `${marker}${name}${marker}`;
    } else {
      plain[name] = params[name];
    }
  }
  const text = t(key, plain);
  if (!names.length) return [text];
  const pieces = text.split(marker);
  // Odd pieces are the names of the placeholders that hold elements.
  return pieces.map((piece, i) => (i % 2 === 1 ? params[piece] : piece)).filter((piece) => piece !== "");
}

/** An ordinal number in the current language's words: "1st", "2nd" (English), "1.", "1º" (others). */
export function ordinal(n) {
  const form = new Intl.PluralRules(current, { type: "ordinal" }).select(Number(n));
  const entry = CATALOGUES[current]["common.ordinal"] ?? en["common.ordinal"];
  const text = (entry && (entry[form] ?? entry.other)) || "{n}";
  return text.replace("{n}", String(n));
}

/** A list in the current language's words: "A, B and C"; the viewer ("You") after the first item in small letters. */
export function listOf(items) {
  const you = t("common.you");
  const list = items.map((item, i) => (i > 0 && String(item) === you ? you.toLocaleLowerCase(current) : String(item)));
  if (typeof Intl !== "undefined" && Intl.ListFormat) {
    // British English: "A, B and C", without the serial comma.
    const locale = current === "en" ? "en-GB" : current;
    return new Intl.ListFormat(locale, { style: "long", type: "conjunction" }).format(list);
  }
  return list.join(", ");
}
