// Firefox check of the web client, run by web/tests/firefox.rs: for each game id given, check its start-page card
// (picture drawn, "Create a table" choosing it in the form), create a two-seat lobby,
// fill the other seat with a bot, start, and play the whole match by clicking the actions the page offers (every
// element that plays an action is marked data-act). Every console error and uncaught error of the page is
// reported, and a game whose page had any fails. Screenshots go to the folder given.
// Usage: node firefox.mjs BASE_URL SCREENSHOT_DIR GAME_ID...
import puppeteer from "puppeteer-core";

const [base, shots, ...games] = process.argv.slice(2);
const firefox = process.env.FIREFOX || "/usr/bin/firefox-esr";
const MATCH_LIMIT_MS = 240_000;
const STEP = `
const app = window.tabletop;
if (document.querySelector('#outcome')) return 'over';
if (!app || !app.state || app.busy || window.__acted === app.state.version) return 'wait';
const buttons = [...document.querySelectorAll('.game [data-act]:not([disabled])')];
if (!buttons.length) return 'wait';
window.__n = (window.__n || 0) + 1;
const b = buttons[(app.state.version * 7 + window.__n) % buttons.length];
if (!b.dataset.local) window.__acted = app.state.version;
b.click();
return 'clicked';`;

const browser = await puppeteer.launch({ browser: "firefox", executablePath: firefox, headless: true });
const failures = [];
for (const id of games) {
  const page = await browser.newPage();
  const errors = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message ?? error}`));
  try {
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${base}/`);
    await page.waitForSelector("#create-game option", { timeout: 20_000 });
    // The start page leads with the games: this game's card has its picture drawn at its size, and its "Create a
    // table" chooses it in the form and brings the form's create button into view.
    const card = `.game-card[data-game=${id}]`;
    await page.waitForFunction(
      (card) => {
        const box = document.querySelector(`${card} .game-picture`)?.getBoundingClientRect();
        const art = document.querySelector(`${card} .game-picture svg, ${card} .game-picture img`)?.getBoundingClientRect();
        return box && art && box.width > 40 && art.width > 20 && art.height > 20 && art.width <= box.width + 1;
      },
      { timeout: 20_000 },
      card,
    );
    await page.click(`${card} button[data-key=create-${id}]`);
    const chosen = await page.evaluate(() => {
      const r = document.querySelector("button[data-key=create-submit]").getBoundingClientRect();
      return { game: document.querySelector("#create-game").value, inView: r.top >= 0 && r.bottom <= innerHeight };
    });
    if (chosen.game !== id || !chosen.inView) throw new Error(`the card's "Create a table": ${JSON.stringify(chosen)}`);
    await page.evaluate(() => {
      for (const [sel, value] of [["#create-seats", "2"], ["#create-name", "Fox"]]) {
        const f = document.querySelector(sel);
        f.value = value;
        f.dispatchEvent(new Event("input"));
        f.dispatchEvent(new Event("change"));
      }
    });
    await page.click("button[data-key=create-submit]");
    await page.waitForSelector("#lobby-code", { timeout: 20_000 });
    await page.click("button[data-key=add-bot]");
    await page.waitForFunction(() => !document.querySelector("[data-key=start]").disabled, { timeout: 20_000 });
    await page.click("button[data-key=start]");
    await page.waitForSelector(".game", { timeout: 20_000 });
    await page.screenshot({ path: `${shots}/firefox-${id}-start.png` });
    const started = Date.now();
    let result = "wait";
    let clicks = 0;
    while (Date.now() - started < MATCH_LIMIT_MS) {
      result = await page.evaluate(new Function(STEP));
      if (result === "over") break;
      if (result === "clicked" && ++clicks === 25) await page.screenshot({ path: `${shots}/firefox-${id}-mid.png` });
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.screenshot({ path: `${shots}/firefox-${id}-result.png` });
    const title = await page.$eval(".game-head h1", (e) => e.textContent);
    console.log(
      `${id}: "${title}" ${result} after ${clicks} clicks in ${Math.round((Date.now() - started) / 1000)} s, ${errors.length} console errors`,
    );
    if (result !== "over") failures.push(`${id}: the match did not end within ${MATCH_LIMIT_MS / 1000} s`);
    if (errors.length) failures.push(`${id}: console errors: ${errors.join(" | ")}`);
  } catch (e) {
    failures.push(`${id}: ${e.message}`);
    await page.screenshot({ path: `${shots}/firefox-${id}-failure.png` }).catch(() => {});
  } finally {
    await page.close();
  }
}
await browser.close();
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
