import { describe, expect, it } from "vitest";
import { parseHiddenList } from "../../src/cli/reproduce.js";
import { runCli as run } from "../support/cli.js";

describe("occam reproduce robot-arm --hidden", () => {
  it("parses a comma-separated list", () => {
    expect(parseHiddenList("1,2,4,8,16")).toEqual([1, 2, 4, 8, 16]);
    expect(parseHiddenList(" 3 , 5")).toEqual([3, 5]);
  });

  for (const bad of ["", "0", "a,b", "2,2", "1.5", "1,,2", "65", "-1"]) {
    it(`rejects --hidden "${bad}" with exit 2, one stderr line and nothing on stdout`, async () => {
      const { code, stdout, stderr } = await run(["reproduce", "robot-arm", "--quick", "--hidden", bad]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      // One line of message (commander's usage errors add program.ts's "(run with --help for usage)" hint).
      const lines = stderr.trimEnd().split("\n");
      expect(lines.filter((line) => line !== "(run with --help for usage)")).toHaveLength(1);
      expect(stderr).toMatch(/hidden/);
    });
  }

  it("refuses --hidden for another reproduction", async () => {
    const { code, stdout, stderr } = await run(["reproduce", "samplers", "--quick", "--hidden", "2"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe("occam: --hidden applies only to robot-arm, not to samplers.\n");
  });

  it("refuses --noise for another reproduction, and a noise that is not a positive number", async () => {
    const other = await run(["reproduce", "everson", "--quick", "--noise", "0.5"]);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe("");
    expect(other.stderr).toBe("occam: --noise applies only to robot-arm, not to everson.\n");
    for (const bad of ["0", "-0.5", "loud"]) {
      const r = await run(["reproduce", "robot-arm", "--quick", "--noise", bad]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/--noise/);
    }
  });

  it("refuses --checkpoint for a reproduction that does not split into units", async () => {
    const { code, stdout, stderr } = await run([
      "reproduce",
      "everson",
      "--quick",
      "--checkpoint",
      "run.jsonl",
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "occam: --checkpoint applies only to robot-arm, calibration and real-models, not to everson.\n",
    );
  });
});
