/**
 * The second version: one for loop, no intermediate array; still inside the try/catch.
 */
function divideByAndSum(num, array) {
  let result = 0;
  try {
    for (let i = 0; i < array.length; i++) {
      result += array[i] / num;
    }
  } catch {
    return 0;
  }
  return result;
}

module.exports = divideByAndSum;
