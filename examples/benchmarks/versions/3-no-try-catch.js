/**
 * The third version: the try/catch replaced by the check it was meant to be.
 */
function divideByAndSum(num, array) {
  if (num === 0) {
    return 0;
  }
  let result = 0;
  for (let i = 0; i < array.length; i++) {
    result += array[i] / num;
  }
  return result;
}

module.exports = divideByAndSum;
