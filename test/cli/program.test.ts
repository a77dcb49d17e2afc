import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runCli as run } from "../support/cli.js";

describe("occam reproduce samplers", () => {
  it("prints one JSON document of the documented shape with --json", async () => {
    const { code, stdout, stderr } = await run(["reproduce", "samplers", "--json", "--quick", "--seed", "5"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const doc = JSON.parse(stdout);
    expect(doc.experiment).toBe("samplers");
    expect(doc.seed).toBe(5);
    expect(new Set(doc.gaussians.map((g: { sampler: string }) => g.sampler))).toEqual(
      new Set(["gibbs", "metropolis", "langevin", "hmc"]),
    );
    const g = doc.gaussians[0];
    for (const key of [
      "rho",
      "sampler",
      "evaluations",
      "mean",
      "covariance",
      "acceptanceRate",
      "ess",
      "essPer1000Evaluations",
    ]) {
      expect(g).toHaveProperty(key);
    }
    expect(g.covariance).toHaveLength(2);
    expect(doc.importance[0]).toEqual({
      proposalVariance: 2,
      samples: 10,
      logZ: expect.any(Number),
      stdErr: expect.any(Number),
    });
  });

  it("shows progress on stderr only when stderr is a terminal", async () => {
    const terminal = await run(["reproduce", "samplers", "--quick", "--json"], true);
    expect(terminal.stderr).toMatch(/samplers: rho = 0.99, hmc/);
    expect(JSON.parse(terminal.stdout).experiment).toBe("samplers");
    expect((await run(["reproduce", "samplers", "--quick", "--json"])).stderr).toBe("");
  });

  it("prints a table by default", async () => {
    const { code, stdout } = await run(["reproduce", "samplers", "--quick"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/sampler\s+evaluations/);
    expect(stdout).toMatch(/0\.99\s+hmc/);
  });
});

describe("occam's handling of bad input", () => {
  it.each([
    [["reproduce", "nonsense"], /unknown experiment "nonsense"; choose one of: samplers/],
    [["reproduce", "samplers", "--seed", "-3"], /seed must be an integer from 0 to 4294967295/],
    [["reproduce", "samplers", "--seed", "1.5"], /seed must be an integer/],
    [["reproduce", "samplers", "--frobnicate"], /unknown option '--frobnicate'/],
    [["nonsense"], /unknown command 'nonsense'/],
  ])("%j exits 2 with a one-line message and nothing on stdout", async (args, message) => {
    const { code, stdout, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("exits 0 for --help and --version", async () => {
    expect((await run(["--help"])).code).toBe(0);
    expect((await run(["--version"])).stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it("sets the process exit code to 2 when run as a program", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "reproduce", "nope"], {
      encoding: "utf8",
    });
    expect(child.status).toBe(2);
    expect(child.stdout).toBe("");
    expect(child.stderr).toMatch(/^occam: unknown experiment "nope"/);
  });
});
