// Checks the page's catalogues (web/static/js/lang/*.js) against each other, run by web/tests/catalogues.rs with
// Node over the real ES modules. Prints one problem a line and exits 1 if there is any:
// - a key of English missing from a language, or a key a language has and English lacks;
// - an entry whose placeholders ({name}) differ from English's (all plural forms together);
// - a plural entry (an object of forms) that is not one in every language, lacks a form the language's plural
//   rules pick for counts from 0 to 200 (Intl.PluralRules; "common.ordinal" uses the ordinal rules), or has a
//   form that is none;
// - an empty text, or anything that is neither a text nor plural forms.

import { pathToFileURL } from "node:url";
import path from "node:path";

const dir = process.argv[2];
const LANGUAGES = ["en", "ro", "pl", "es", "it"];
const ORDINAL_KEYS = new Set(["common.ordinal"]);
const PLURAL_FORMS = ["zero", "one", "two", "few", "many", "other"];

const catalogues = {};
for (const code of LANGUAGES) {
  catalogues[code] = (await import(pathToFileURL(path.join(dir, `${code}.js`)).href)).default;
}

const problems = [];
const placeholders = (entry) => {
  const texts = typeof entry === "object" && entry !== null ? Object.values(entry) : [entry];
  const names = new Set();
  for (const text of texts) for (const m of String(text).matchAll(/\{(\w+)\}/g)) names.add(m[1]);
  return [...names].sort().join(",");
};

const en = catalogues.en;
for (const code of LANGUAGES) {
  const cat = catalogues[code];
  const rules = (key) => new Intl.PluralRules(code, { type: ORDINAL_KEYS.has(key) ? "ordinal" : "cardinal" });
  for (const key of Object.keys(en)) {
    if (!(key in cat)) problems.push(`${code}: missing key "${key}"`);
  }
  for (const [key, entry] of Object.entries(cat)) {
    if (!(key in en)) {
      problems.push(`${code}: key "${key}" is not in English`);
      continue;
    }
    if (typeof entry === "string") {
      if (!entry.trim()) problems.push(`${code}: "${key}" is empty`);
      if (typeof en[key] === "object") problems.push(`${code}: "${key}" is one text, but English has plural forms`);
    } else if (entry && typeof entry === "object") {
      if (typeof en[key] !== "object") problems.push(`${code}: "${key}" has plural forms, but English has one text`);
      // The forms the language picks for the counts a game shows (0 to 200); Spanish and Italian "many", for a
      // million and up, falls back to "other".
      const pick = rules(key);
      const needed = [...new Set(Array.from({ length: 201 }, (_, n) => pick.select(n)))];
      for (const form of needed) {
        if (!(form in entry)) problems.push(`${code}: "${key}" lacks the plural form "${form}"`);
      }
      for (const [form, text] of Object.entries(entry)) {
        // Forms a language does not use are harmless (a catalogue may list { one, few, many, other } everywhere).
        if (!PLURAL_FORMS.includes(form)) problems.push(`${code}: "${key}" has "${form}", which is no plural form`);
        if (typeof text !== "string" || !text.trim()) problems.push(`${code}: "${key}".${form} is not a text`);
      }
    } else {
      problems.push(`${code}: "${key}" is neither a text nor plural forms`);
    }
    if (placeholders(entry) !== placeholders(en[key])) {
      problems.push(
        `${code}: "${key}" has placeholders {${placeholders(entry)}} but English has {${placeholders(en[key])}}`,
      );
    }
  }
}

console.log(JSON.stringify({ keys: Object.keys(en).length, problems }));
process.exit(problems.length ? 1 : 0);
