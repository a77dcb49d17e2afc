import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../../src/random/rng.js";
import { CHROMIUM, watchPage } from "../support/browser.js";
import { runCli } from "../support/cli.js";

const HOSTILE = "<script>alert(1)</script>";
const folder = mkdtempSync(join(tmpdir(), "occam-page-"));
let browser: Browser;

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build-web.mjs", folder], { stdio: "pipe" });
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  console.log(`page screenshots in ${folder}`);
});

/** The page opened from file:// with the network cut: what it requested beyond its own files, and its console's complaints. */
async function openPage(hash = "") {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const { consoleProblems: problems, dialogs } = watchPage(page);
  const requests: string[] = [];
  const own = `file://${folder}/`;
  await page.route("**/*", async (route) => {
    const url = route.request().url();
    if (url.startsWith(own) || url.startsWith("blob:")) await route.continue();
    else {
      requests.push(url);
      await route.abort();
    }
  });
  await page.goto(`${own}index.html${hash}`, { waitUntil: "load" });
  /** Closes the page, which made no request, logged no console problem and opened no dialog. */
  const close = async () => {
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    expect(dialogs).toEqual([]);
    await page.close();
  };
  return { page, close };
}

/** Waits until the compare tab shows a result or an error, and returns its status line. */
async function compareFinished(page: Page): Promise<string> {
  // The predicates are strings: they run in the page, whose globals this file's types do not know.
  await page.waitForFunction(
    `document.getElementById("result-json").textContent !== "" ||
     document.getElementById("compare-status").classList.contains("error")`,
    null,
    { timeout: 120_000 },
  );
  return (await page.textContent("#compare-status")) ?? "";
}

/** A comparison's models, inclusion probabilities and coefficients, in the page and from the CLI. */
function expectSameComparison(inPage: Record<string, unknown>, cli: Record<string, unknown>): void {
  for (const field of ["models", "inclusionProbabilities", "coefficients"]) {
    expectSameNumbers(inPage[field], cli[field], field);
  }
}

/** The same structure with every number within 1e-12 of the other, relatively (or absolutely near 0). */
function expectSameNumbers(a: unknown, b: unknown, where: string): void {
  if (typeof a === "number" && typeof b === "number") {
    expect(Math.abs(a - b), where).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(a), Math.abs(b)));
  } else if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    expect(Object.keys(a), where).toEqual(Object.keys(b));
    for (const key of Object.keys(a)) {
      expectSameNumbers(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${where}.${key}`,
      );
    }
  } else expect(a, where).toEqual(b);
}

describe("the page (npm run build:web), in headless Chromium from file://", () => {
  it("compares the wine example from a link to the CLI's numbers (to a few units in the last place), offline and without a console error", async () => {
    const { page, close } = await openPage("#example=wine-alcohol&target=alcohol");
    expect(await compareFinished(page)).toMatch(/^Done/);
    const inPage = JSON.parse((await page.textContent("#result-json")) ?? "");
    const run = await runCli(["compare", "examples/wine-alcohol.csv", "--target", "alcohol", "--json"]);
    const cli = JSON.parse(run.stdout);
    expect(inPage.modelCount).toBe(4096);
    // The same models in the same order, and the same numbers to a few units in the last place:
    // Chromium's Math.exp, Math.log and Math.pow round some arguments to the other neighbouring
    // double than Node's do (about one call in ten, measured), so bit-for-bit equality across
    // engines is not to be had.
    expect(inPage.models.map((m: { inputs: string[] }) => m.inputs)).toEqual(
      cli.models.map((m: { inputs: string[] }) => m.inputs),
    );
    expectSameComparison(inPage, cli);
    // The report's tables and plots, as --report draws them, in a frame that runs no script.
    const report = page.frameLocator("#report");
    await expect.poll(() => report.locator("svg").count()).toBeGreaterThanOrEqual(3);
    expect(await page.getAttribute("#report", "sandbox")).toBe("");
    console.log(
      `wine, 4096 models: compute ${inPage.seconds.toFixed(2)} s in Chromium, ${cli.seconds.toFixed(2)} s in the CLI (ratio ${(inPage.seconds / cli.seconds).toFixed(2)})`,
    );
    await page.screenshot({ path: join(folder, "compare.png"), fullPage: true });
    await close();
  }, 180_000);

  it("compares the Pima example, by its button, as logistic regressions: the CLI's --family bernoulli numbers", async () => {
    const { page, close } = await openPage();
    await page.click('[data-example="pima"]');
    expect(await page.inputValue("#target")).toBe("type");
    expect(await page.inputValue("#family")).toBe("bernoulli");
    // Every status line the run shows, as it shows it: the progress of the models.
    // And every caption of the table of models that fills in while it runs.
    await page.evaluate(`
      window.statuses = [];
      new MutationObserver(() => window.statuses.push(document.getElementById("compare-status").textContent))
        .observe(document.getElementById("compare-status"), { childList: true, characterData: true, subtree: true });
      window.captions = [];
      new MutationObserver(() => window.captions.push(document.getElementById("compare-live-caption").textContent))
        .observe(document.getElementById("compare-live-caption"), { childList: true, characterData: true, subtree: true });
    `);
    await page.click("#compare-run");
    expect(await compareFinished(page)).toMatch(/^Done/);
    const statuses = (await page.evaluate("window.statuses")) as string[];
    expect(
      statuses.some((line) => /model \d+ of 128$/.test(line)),
      statuses.join(" | "),
    ).toBe(true);
    const captions = (await page.evaluate("window.captions")) as string[];
    expect(captions[0]).toBe("The 1 best of the 1 models done so far, by log evidence");
    expect(captions.at(-1)).toBe("The 10 best of the 128 models done so far, by log evidence");
    // Done, the report takes the table's place.
    expect(await page.isVisible("#compare-live")).toBe(false);
    const inPage = JSON.parse((await page.textContent("#result-json")) ?? "");
    const args = [
      "compare",
      "examples/real-models/pima.csv",
      "--target",
      "type",
      "--family",
      "bernoulli",
      "--json",
    ];
    const cli = JSON.parse((await runCli(args)).stdout);
    expect(inPage.modelCount).toBe(128);
    expectSameComparison(inPage, cli);
    await close();
  }, 120_000);

  it("compares successes out of trials (binomial) with the column of trials chosen: the CLI's --trials numbers", async () => {
    // Tobacco budworms killed out of 20 by log2 doses of a pyrethroid, by sex (Venables & Ripley's budworm).
    const dead = { M: [1, 4, 9, 13, 18, 20], F: [0, 2, 6, 10, 12, 16] };
    const rows = ["ldose,sex,dead,n"];
    for (const sex of ["M", "F"] as const) {
      for (const [dose, d] of dead[sex].entries()) rows.push(`${dose},${sex},${d},20`);
    }
    const file = join(folder, "budworm.csv");
    writeFileSync(file, `${rows.join("\n")}\n`);
    const { page, close } = await openPage();
    await page.setInputFiles("#csv-file", file);
    expect(await page.isDisabled("#trials")).toBe(true);
    await page.selectOption("#target", "dead");
    await page.selectOption("#family", "binomial");
    expect(await page.isEnabled("#trials")).toBe(true);
    await page.selectOption("#trials", "n");
    await page.click("#compare-run");
    expect(await compareFinished(page)).toMatch(/^Done/);
    const inPage = JSON.parse((await page.textContent("#result-json")) ?? "");
    const args = ["compare", file, "--target", "dead", "--family", "binomial", "--trials", "n", "--json"];
    const cli = JSON.parse((await runCli(args)).stdout);
    expect(inPage.family).toBe("binomial");
    expect(inPage.models[0].inputs).toEqual(["ldose", "sex"]);
    expectSameComparison(inPage, cli);
    await close();
  }, 120_000);

  it("shows a hostile column name as text and runs nothing from it", async () => {
    const rng = createRng(4);
    const rows = [`x,${HOSTILE},y`];
    for (let i = 0; i < 40; i++) {
      const x = rng.normal();
      const h = rng.normal();
      rows.push(`${x},${h},${x + 0.5 * h + rng.normal()}`);
    }
    const file = join(folder, "hostile.csv");
    writeFileSync(file, `${rows.join("\n")}\n`);
    const { page, close } = await openPage();
    await page.setInputFiles("#csv-file", file);
    await page.selectOption("#target", "y");
    expect(await page.locator("#target option").allTextContents()).toContain(HOSTILE);
    await page.click("#compare-run");
    expect(await compareFinished(page)).toMatch(/^Done/);
    expect(JSON.parse((await page.textContent("#result-json")) ?? "").inputs).toContain(HOSTILE);
    expect(await page.locator("script").count()).toBe(1);
    expect(await page.frameLocator("#report").locator("script").count()).toBe(0);
    await close();
  }, 120_000);

  it("cancels a long run and stays responsive; the evidence tab gets the CLI's log Z within the standard errors", async () => {
    const { page, close } = await openPage();
    await page.click("#tab-evidence");
    // Many methods at their defaults: seconds of work, cancelled at once.
    await page.fill("#methods", "bridge,smc,stepping-stone,path,nested");
    await page.click("#evidence-run");
    // Responsive while the run goes on (its Cancel still enabled): the tabs switch by keyboard, which a
    // page whose thread the run held could not do until the run ended.
    await page.focus("#tab-evidence");
    await page.keyboard.press("ArrowLeft");
    expect(await page.isVisible("#panel-compare")).toBe(true);
    await page.keyboard.press("ArrowRight");
    expect(await page.isVisible("#panel-evidence")).toBe(true);
    expect(await page.isEnabled("#evidence-cancel")).toBe(true);
    await page.click("#evidence-cancel");
    expect(await page.textContent("#evidence-status")).toBe("Cancelled.");
    // The README's model, preloaded, with the default methods (none named), as `occam evidence` runs it.
    await page.fill("#methods", "");
    // Each method's row as it comes, before the run is done.
    await page.evaluate(`
      window.rowsWhileRunning = [];
      new MutationObserver(() => {
        if (!document.getElementById("evidence-status").textContent.startsWith("Done"))
          window.rowsWhileRunning.push(document.getElementById("evidence-rows").children.length);
      }).observe(document.getElementById("evidence-rows"), { childList: true });
    `);
    await page.click("#evidence-run");
    await page.waitForFunction(
      `document.getElementById("evidence-status").textContent.startsWith("Done")`,
      null,
      {
        timeout: 120_000,
      },
    );
    expect(await page.evaluate("window.rowsWhileRunning")).toContain(1);
    const inPage = JSON.parse((await page.textContent("#evidence-json")) ?? "");
    const run = await runCli(["evidence", "examples/evidence-model.mjs", "--json"]);
    const cli = JSON.parse(run.stdout);
    expect(inPage.agree).toBe(true);
    const difference = inPage.consensus.logZ - cli.consensus.logZ;
    expect(Math.abs(difference)).toBeLessThan(3 * Math.hypot(inPage.consensus.stdErr, cli.consensus.stdErr));
    // And the model's exact log evidence, −14.6228 (examples/evidence-model.mjs).
    expect(Math.abs(inPage.consensus.logZ + 14.6228)).toBeLessThan(3 * inPage.consensus.stdErr + 1e-4);
    await page.screenshot({ path: join(folder, "evidence.png"), fullPage: true });
    await close();
  }, 240_000);
});
