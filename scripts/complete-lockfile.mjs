#!/usr/bin/env node
/**
 * Adds to package-lock.json the platform-specific optional packages (other operating systems and
 * CPUs) that the registry this project installs from does not serve. Without their entries `npm ci`
 * refuses the lockfile as out of sync; with them, npm sees they do not fit this platform and skips
 * them without fetching. Run after every `npm install` that changes the lockfile.
 */
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;

/** os, cpu and libc of a platform package, read from its name (biome, rollup and esbuild naming). */
function platformOf(name) {
  const base = name.split("/").pop();
  const os = [
    "android",
    "darwin",
    "win32",
    "freebsd",
    "openbsd",
    "openharmony",
    "linux",
    "netbsd",
    "sunos",
    "aix",
  ].find((o) => base.includes(`-${o}-`) || base.startsWith(`${o}-`));
  const cpu = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "mips64el"].find((c) =>
    base.split("-").includes(c),
  );
  const libc = base.includes("musl") ? "musl" : os === "linux" ? "glibc" : undefined;
  return { os, cpu: base.includes("arm-") && !base.includes("arm64") ? "arm" : cpu, libc };
}

let added = 0;
for (const [key, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depKey = `node_modules/${dep}`;
    if (packages[depKey] !== undefined) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (os === undefined || cpu === undefined) {
      throw new Error(
        `${dep} (optional dependency of ${key || "the root"}) is missing and not a platform package`,
      );
    }
    packages[depKey] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} platform packages this registry does not serve`);
