import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshReadme, renderActionTables, updateReadme } from '../../scripts/readme-inputs.js';

test('docs/action.md lists exactly the inputs and outputs of action.yml (run npm run readme after changing action.yml)', () => {
  const { current, fresh } = freshReadme();
  assert.ok(current === fresh, 'docs/action.md is out of date: run npm run readme');
});

test('the generated tables escape pipes and keep every description on one line', () => {
  const tables = renderActionTables(`
inputs:
  odd:
    description: |
      one | two
      three
    default: a|b
outputs:
  out:
    description: yes
`);
  assert.match(tables, /^\| `odd` \| `a\\\|b` \| one \\\| two three \|$/m);
  assert.match(tables, /^\| `out` \| yes \|$/m);
  assert.throws(() => updateReadme('no markers here', tables), /needs the markers/);
});
