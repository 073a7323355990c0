/**
 * Which returning callers a group waits for (store/returning-callers.ts, docs/design/hot-path.md
 * §8 and §20), on a test clock: the default window for a caller not yet measured and for a slow
 * one, a longer window for a caller that comes back quickly, never more than the cap, and how
 * long a hold may last; the window widened to a group's length when groups take long (§25).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReturningCallers } from '../../src/store/returning-callers.js';

const DEFAULT_MS = 4;

/** `caller` answered with work at `at` and back `after` ms later, `times` times in a row. */
function turnArounds(callers: ReturningCallers, caller: string, after: number, times: number) {
  let at = 0;
  for (let i = 0; i < times; i++) {
    callers.answered(caller, true, at);
    callers.arrived(caller, at + after);
    at += after + 1;
  }
  return at;
}

/** `times` groups that each ran for `ms`. */
function groupsOf(callers: ReturningCallers, ms: number, times: number) {
  for (let i = 0; i < times; i++) {
    callers.groupRan(ms);
  }
}

describe('returning callers', () => {
  test('a caller not yet measured is expected for the default window after its answer', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    callers.answered('w', true, 100);
    assert.equal(callers.windowOf('w'), DEFAULT_MS);
    assert.equal(callers.expected(101), 3, 'three ms of its window left');
    assert.equal(callers.expected(104), 0, 'its window is over');
    assert.equal(callers.expected(101), 0, 'and it is forgotten');
  });

  test('a caller that comes back quickly is waited for three times its turn-around', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    const at = turnArounds(callers, 'quick', 3, 20);
    assert.equal(callers.windowOf('quick'), 9);
    callers.answered('quick', true, at);
    assert.equal(callers.expected(at + 6), 3, 'still expected 6 ms after its answer');
    assert.equal(callers.expected(at + 9), 0);
  });

  test('the window of a quick caller stays between the default and the cap', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    turnArounds(callers, 'instant', 0.2, 20);
    assert.equal(callers.windowOf('instant'), DEFAULT_MS);
    turnArounds(callers, 'near-quick', 7.5, 40);
    assert.equal(callers.windowOf('near-quick'), ReturningCallers.MAX_WINDOW_MS);
  });

  test('a slow caller keeps the default window: the others are not held longer for it', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    const at = turnArounds(callers, 'slow', 20, 20);
    assert.equal(callers.windowOf('slow'), DEFAULT_MS);
    callers.answered('slow', true, at);
    assert.equal(callers.expected(at + 5), 0);
  });

  test('the turn-around is a moving average: one straggler does not make a caller slow', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    const at = turnArounds(callers, 'w', 3, 20);
    callers.answered('w', true, at);
    callers.arrived('w', at + 30);
    assert.ok(callers.windowOf('w') > DEFAULT_MS, `window ${callers.windowOf('w')}`);
    assert.ok(callers.windowOf('w') <= ReturningCallers.MAX_WINDOW_MS);
  });

  test('the hold lasts until the latest expected caller is due; a running call counts', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    const at = turnArounds(callers, 'quick', 3, 20);
    callers.answered('quick', true, at);
    callers.answered('new', true, at + 2);
    assert.equal(callers.expected(at + 3), 6, 'quick: 9 ms from its answer; new: 4 from its own');
    callers.arrived('quick', at + 3);
    assert.equal(callers.expected(at + 3), 3, 'only new is left');
    callers.running('quick');
    assert.equal(callers.expected(at + 7), DEFAULT_MS, 'quick is in a running transaction');
  });

  test("groups longer than a caller's turn-around widen its window up to a group", () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    turnArounds(callers, 'w', 10, 20);
    assert.equal(callers.windowOf('w'), DEFAULT_MS, 'slower than QUICK_MS, groups unmeasured');
    groupsOf(callers, 20, 40);
    assert.equal(callers.windowOf('w'), 20, 'quick against 20 ms groups: up to a group');
    const at = turnArounds(callers, 'w', 10, 1);
    callers.answered('w', true, at);
    assert.equal(callers.expected(at + 15), 5, 'still expected 15 ms after its answer');
  });

  test('a caller slower than the groups keeps the default; short groups change nothing', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    turnArounds(callers, 'slow', 25, 20);
    turnArounds(callers, 'near-quick', 7.5, 40);
    groupsOf(callers, 20, 40);
    assert.equal(callers.windowOf('slow'), DEFAULT_MS);
    groupsOf(callers, 2, 80);
    assert.equal(callers.windowOf('near-quick'), ReturningCallers.MAX_WINDOW_MS);
    turnArounds(callers, 'nine', 9, 40);
    assert.equal(callers.windowOf('nine'), DEFAULT_MS, 'past QUICK_MS with short groups');
  });

  test('however long the groups, no caller is waited for beyond the longest window', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    groupsOf(callers, 200, 40);
    turnArounds(callers, 'w', 25, 20);
    assert.equal(callers.windowOf('w'), ReturningCallers.LONGEST_WINDOW_MS);
    turnArounds(callers, 'slower', 40, 20);
    assert.equal(callers.windowOf('slower'), DEFAULT_MS, 'beyond the longest window: not quick');
  });

  test('an answer without more work forgets the caller', () => {
    const callers = new ReturningCallers(DEFAULT_MS);
    callers.answered('w', true, 0);
    callers.answered('w', false, 1);
    assert.equal(callers.expected(1), 0);
    callers.arrived('w', 2);
    assert.equal(callers.windowOf('w'), DEFAULT_MS, 'no turn-around measured from it');
  });
});
