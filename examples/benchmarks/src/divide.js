/**
 * Divides every number by `num` and sums the results. The first version: map, then reduce, in a
 * try/catch meant to guard against dividing by zero (which in JavaScript does not throw).
 */
function divideByAndSum(num, array) {
  try {
    return array.map((item) => item / num).reduce((acc, item) => acc + item, 0);
  } catch {
    return 0;
  }
}

module.exports = divideByAndSum;
