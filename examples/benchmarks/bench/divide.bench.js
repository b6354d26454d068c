// The hot function on its own, in a benchmark.js suite: the suite a developer writes to compare
// implementations, unchanged for perfgate, which runs it on base and head of every pull request.
const Benchmark = require('benchmark');
const divideByAndSum = require('../src/divide');

// Deterministic input: the same 1,000 numbers on every run and both sides (no Math.random()).
const numbers = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);

// perfgate repeats the whole process (10 rounds per side), so 1 s per benchmark is plenty.
const options = { maxTime: 1 };

new Benchmark.Suite('divide')
  .add('divideByAndSum', () => divideByAndSum(12, numbers), options)
  .on('cycle', (event) => console.log(String(event.target)))
  .run();
