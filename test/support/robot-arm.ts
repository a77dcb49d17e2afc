/** Robot-arm experiment settings small enough for a unit test: the shape of a result, not its numbers. */
export const TINY_ROBOT_ARM = {
  nTrain: 30,
  nTest: 20,
  mlStarts: 1,
  warmupPerTemperature: 2,
  drawsPerTemperature: 3,
  burnIn: 20,
  posteriorDraws: 10,
  ensembleSamples: 50,
};
