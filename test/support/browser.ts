import { existsSync, statSync } from "node:fs";
import { chromium, type Page } from "playwright-core";

/** Debian's Chromium, which `.ci/run` installs; OCCAM_CHROMIUM names another. */
export const CHROMIUM = process.env.OCCAM_CHROMIUM ?? "/usr/bin/chromium";

/** The window's width: a laptop's browser window. */
const VIEWPORT_WIDTH = 1300;

/** What a person opening a report would meet. */
export interface PageVisit {
  /** Console messages of type error or warning. */
  readonly consoleProblems: readonly string[];
  /** Every request the page made other than the file itself. */
  readonly requests: readonly string[];
  /** Dialogs that opened (an injected `alert` would open one). */
  readonly dialogs: readonly string[];
  /** Script elements in the page. */
  readonly scripts: number;
  /** Each inline SVG's drawn size and number of marks (paths, rects, lines, circles, text). */
  readonly svgs: readonly { width: number; height: number; marks: number }[];
  /** The page's visible text. */
  readonly text: string;
  /** Pixels by which the page is wider than the window (0 when nothing scrolls sideways). */
  readonly horizontalOverflow: number;
  /** Bytes of the full-page PNG screenshot. */
  readonly screenshotBytes: number;
}

/** Opens an HTML file in headless Chromium, with the network cut, and looks at it. */
export async function visitReport(file: string, screenshot: string): Promise<PageVisit> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium)`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: VIEWPORT_WIDTH, height: 900 } });
    const { consoleProblems, dialogs } = watchPage(page);
    const requests: string[] = [];
    const url = `file://${file}`;
    await page.route("**/*", async (route) => {
      if (route.request().url() !== url) requests.push(route.request().url());
      if (route.request().url() === url) await route.continue();
      else await route.abort();
    });
    await page.goto(url, { waitUntil: "load" });
    const scripts = await page.locator("script").count();
    const svgs = await page.locator("svg").evaluateAll((nodes) =>
      nodes.map((n) => {
        const box = n.getBoundingClientRect();
        return {
          width: box.width,
          height: box.height,
          marks: n.querySelectorAll("path, rect, line, circle, text").length,
        };
      }),
    );
    // biome-ignore lint/performance/useDomNodeTextContent: what a person sees is the rendered text.
    const text = await page.locator("body").innerText();
    const horizontalOverflow = await page
      .locator("html")
      .evaluate((root) => root.scrollWidth - root.clientWidth);
    await page.screenshot({ path: screenshot, fullPage: true });
    return {
      consoleProblems,
      requests,
      dialogs,
      scripts,
      svgs,
      text,
      horizontalOverflow,
      screenshotBytes: statSync(screenshot).size,
    };
  } finally {
    await browser.close();
  }
}

/** Collects a page's console errors and warnings (uncaught exceptions too) and dismisses and records its dialogs. */
export function watchPage(page: Page): { consoleProblems: string[]; dialogs: string[] } {
  const consoleProblems: string[] = [];
  const dialogs: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") consoleProblems.push(m.text());
  });
  page.on("pageerror", (e) => consoleProblems.push(e.message));
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  return { consoleProblems, dialogs };
}
