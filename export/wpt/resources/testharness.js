// A minimal stand-in for web-platform-tests' testharness.js, enough to run the tests that
// `lockstep export --wpt` writes outside a WPT checkout: setup, promise_test, assert_equals,
// assert_array_equals and assert_true. Each test's outcome goes to `window.lockstepResults`; when
// all are done, testharnessreport.js shows them. In a WPT checkout the real files are used instead.
'use strict';
(function (global) {
  const tests = [];
  global.lockstepResults = [];
  class AssertionError extends Error {}
  const show = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  global.assert_true = (v, message) => {
    if (v !== true) throw new AssertionError(`${message || 'assert_true'}: got ${show(v)}`);
  };
  global.assert_equals = (actual, expected, message) => {
    if (!Object.is(actual, expected))
      throw new AssertionError(
          `${message || 'assert_equals'}: expected ${show(expected)}, got ${show(actual)}`);
  };
  global.assert_array_equals = (actual, expected, message) => {
    const where = message || 'assert_array_equals';
    if (!Array.isArray(actual) || actual.length !== expected.length)
      throw new AssertionError(`${where}: lengths differ: expected ${JSON.stringify(expected)}, ` +
                               `got ${JSON.stringify(actual)}`);
    for (let i = 0; i < expected.length; ++i)
      if (!Object.is(actual[i], expected[i]))
        throw new AssertionError(`${where}: item ${i}: expected ${show(expected[i])}, got ` +
                                 `${show(actual[i])}`);
  };
  global.promise_test = (fn, name) => tests.push({fn, name});
  // As in WPT, an uncaught exception or unhandled rejection of this window fails the test that
  // is running, unless setup({allow_uncaught_exception: true}) says the page expects them.
  let allowUncaught = false, uncaught = null;
  global.setup = (options) => {
    allowUncaught = Boolean(options && options.allow_uncaught_exception);
  };
  const onUncaught = (what) => {
    if (!allowUncaught && !uncaught) uncaught = what;
  };
  global.addEventListener('error', (e) => onUncaught(`uncaught exception: ${e.message}`));
  global.addEventListener('unhandledrejection',
                          (e) => onUncaught(`unhandled rejection: ${e.reason && e.reason.message || e.reason}`));
  global.addEventListener('load', async () => {
    for (const {fn, name} of tests) {
      uncaught = null;
      try {
        await fn({});
        if (uncaught) throw new AssertionError(uncaught);
        global.lockstepResults.push({name, status: 'PASS'});
      } catch (e) {
        global.lockstepResults.push({name, status: 'FAIL', message: String(e && e.message || e)});
      }
    }
    global.dispatchEvent(new Event('lockstep-done'));
  });
})(globalThis);
