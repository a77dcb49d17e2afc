/** Texts the build puts in the bundle (scripts/build-web.mjs): the examples, and the worker's code. */
declare module "bundled:*" {
  const text: string;
  export default text;
}
