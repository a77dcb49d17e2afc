/**
 * The code a user copies from README.md and docs/ runs, and prints what it says it prints.
 *
 * - A `ts` or `js` block that imports from "occam" is a program: it is run as a module from the
 *   repository's folder (so "examples/…" paths resolve as they do for a user there).
 * - A `console.log(…)` line ending in `// → text` must print the numbers of `text`, in order, each
 *   to the decimals written (0.407 matches 0.40712); other printed numbers may come between them.
 * - A block that is a model file (`export default defineModel(…)`) must be one of examples/' files, word
 *   for word, so that the page shows what the commands it quotes run.
 * - Other blocks (fragments such as `defineModel({ dim: 2, bounds: … })`) are not run.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/spawn.js";

interface Block {
  readonly page: string;
  readonly line: number;
  readonly language: string;
  readonly code: string;
}

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

function blocks(page: string): Block[] {
  const text = readFileSync(join(ROOT, page), "utf8");
  const found: Block[] = [];
  for (const m of text.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)) {
    const language = m[1];
    if (!["ts", "js"].includes(language) || !m[2].includes('from "occam"')) continue;
    found.push({ page, line: text.slice(0, m.index).split("\n").length, language, code: m[2] });
  }
  return found;
}

/** The numbers in a text, with the decimals each was written with. */
function numbers(text: string): { value: number; decimals: number }[] {
  return [...text.matchAll(/-?\d+(?:\.(\d+))?(?:e[-+]?\d+)?/g)].map((m) => ({
    value: Number(m[0]),
    decimals: m[1]?.length ?? 0,
  }));
}

/** Whether the expected numbers appear in `printed`, in order, each to its written decimals. */
function printsExpected(printed: string, expected: string): boolean {
  const got = numbers(printed);
  let k = 0;
  for (const want of numbers(expected)) {
    while (k < got.length && Number(got[k].value.toFixed(want.decimals)) !== want.value) k++;
    if (k === got.length) return false;
    k++;
  }
  return true;
}

/** The block with each checked `console.log(` made a call that records what it prints, by line. */
function instrumented(code: string): { source: string; expected: Map<number, string> } {
  const expected = new Map<number, string>();
  const lines = code.split("\n").map((line, i) => {
    const m = line.match(/^(.*)console\.log\((.*)\/\/ → (.*)$/);
    if (m === null) return line;
    expected.set(i, m[3]);
    return `${m[1]}globalThis.__docPrint(${i}, ${m[2]}`;
  });
  return { source: lines.join("\n"), expected };
}

const programs = PAGES.flatMap(blocks).filter((b) => !/^export default /m.test(b.code));
const modelFiles = PAGES.flatMap(blocks).filter((b) => /^export default /m.test(b.code));
const written: string[] = [];
afterAll(() => {
  for (const file of written) rmSync(file, { force: true });
});

describe("the code blocks of README.md and docs/", () => {
  it("finds the programs on the pages", () => {
    expect(programs.length).toBeGreaterThanOrEqual(6);
  });

  it.each(programs.map((b) => [`${b.page}:${b.line}`, b] as const))(
    "%s runs and prints what its comments say",
    async (_name, block) => {
      const { source, expected } = instrumented(block.code);
      const printed = new Map<number, string>();
      (globalThis as { __docPrint?: unknown }).__docPrint = (line: number, ...values: unknown[]) => {
        if (!printed.has(line)) printed.set(line, format(...values));
      };
      const file = join(
        ROOT,
        `.doc-block-${block.page.replace(/\W/g, "-")}-${block.line}.${block.language === "js" ? "mjs" : "ts"}`,
      );
      written.push(file);
      writeFileSync(file, source);
      await import(file);
      for (const [line, want] of expected) {
        const got = printed.get(line);
        expect(got, `line ${line + 1} of the block printed nothing`).toBeDefined();
        expect(printsExpected(got as string, want), `printed «${got}», the page says «${want}»`).toBe(true);
      }
    },
  );

  it.each(modelFiles.map((b) => [`${b.page}:${b.line}`, b] as const))(
    "%s is a file of examples/, word for word",
    (_name, block) => {
      const examples = readdirSync(join(ROOT, "examples")).filter((f) => /\.(mjs|ts)$/.test(f));
      const same = examples.filter((f) => readFileSync(join(ROOT, "examples", f), "utf8") === block.code);
      expect(same, "no file in examples/ has this text").toHaveLength(1);
    },
  );
});
