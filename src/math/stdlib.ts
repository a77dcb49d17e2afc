/**
 * The special functions and random generators occam takes from @stdlib, in one module. Each stdlib
 * package is a tree of a few hundred small CommonJS files, and Node spent about 0.3 s of every thread's
 * start loading them; the build replaces this module's compiled file with one bundle of them all
 * (`scripts/bundle-stdlib.mjs`, about 0.08 s to load). Sources and tests import the packages directly.
 */
export { default as betaln } from "@stdlib/math-base-special-betaln";
export { default as digamma } from "@stdlib/math-base-special-digamma";
export { default as erfc } from "@stdlib/math-base-special-erfc";
export { default as erfcinv } from "@stdlib/math-base-special-erfcinv";
export { default as gammaln } from "@stdlib/math-base-special-gammaln";
export { default as betaFactory } from "@stdlib/random-base-beta";
export { default as gammaFactory } from "@stdlib/random-base-gamma";
export { default as mt19937 } from "@stdlib/random-base-mt19937";
export { default as normalFactory } from "@stdlib/random-base-normal";
export { default as chisquareQuantile } from "@stdlib/stats-base-dists-chisquare-quantile";
export { default as tCdf } from "@stdlib/stats-base-dists-t-cdf";
export { default as tQuantile } from "@stdlib/stats-base-dists-t-quantile";
